"""The Foldchat engine: UI-free building blocks for folding chat histories.

Import from here; `__all__` is the supported surface (a test pins it).
"""

from .errors import CurrentTurnTooLarge, FoldchatError, FoldFailed, InvalidMessage, UsageError
from .events import FoldCompleted, FoldEvent, FoldProgress, FoldStarted
from .events import FoldFailed as FoldFailedEvent
from .fold import FoldReport, FoldRequest, FoldResult, fold_context
from .messages import Message, ToolCall, dump_messages, parse_messages
from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from .snapshot import Snapshot
from .summarizers import RulesSummarizer, Summarizer, SummaryRequest

__all__ = [
    "CurrentTurnTooLarge",
    "Decision",
    "FoldCompleted",
    "FoldEvent",
    "FoldFailed",
    "FoldFailedEvent",
    "FoldHistory",
    "FoldPolicy",
    "FoldProgress",
    "FoldReport",
    "FoldRequest",
    "FoldResult",
    "FoldStarted",
    "FoldchatError",
    "InvalidMessage",
    "Message",
    "RulesSummarizer",
    "Snapshot",
    "Summarizer",
    "SummaryRequest",
    "ToolCall",
    "Trigger",
    "UsageError",
    "decide",
    "dump_messages",
    "fold_context",
    "parse_messages",
]
