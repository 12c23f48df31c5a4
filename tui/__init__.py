"""The Foldchat Textual app (the only part of Foldchat that imports Textual)."""
