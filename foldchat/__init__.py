"""Foldchat: a terminal chat for LLMs that folds conversations instead of forgetting them."""

__version__ = "0.1.0"
