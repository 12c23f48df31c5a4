"""Summarizers turn folded messages into a `Snapshot`. See `base.Summarizer`."""

from .base import Summarizer, SummaryRequest
from .rules import RulesSummarizer

__all__ = ["RulesSummarizer", "Summarizer", "SummaryRequest"]
