"""The Foldchat engine: UI-free building blocks for folding chat histories.

Import from here; `__all__` is the supported surface (a test pins it), and the TUI and the CLI import
nothing else (a test parses their imports). `Session` is the application API: one open conversation,
its model, sending, streaming and folding. Names load on first use, so `from foldchat.engine import
UsageError` (what the CLI needs to start) does not pull in pydantic or litellm.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .chat import FoldPlan, ReplyEvent, Usage
    from .compress import CompressOptions, compress_messages
    from .config import load_settings
    from .crash_log import crash_line, write_crash_log
    from .errors import (
        ConfigError,
        CurrentTurnTooLarge,
        DiskFull,
        ExportError,
        FoldchatError,
        FoldFailed,
        InputTooLarge,
        InvalidMessage,
        ProviderError,
        StorageError,
        UnknownModel,
        UsageError,
    )
    from .events import FoldCompleted, FoldEvent, FoldProgress, FoldStarted, ToolCalling, ToolCallsAnswered
    from .events import FoldFailed as FoldFailedEvent
    from .export import status_suffix
    from .fold import FoldRequest, FoldResult, fold_context
    from .messages import Message, ToolCall, dump_messages, parse_messages
    from .options import OpenOptions
    from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
    from .providers import (
        Failed,
        Finished,
        ModelTarget,
        Notice,
        ProviderEvent,
        ReasoningDelta,
        Retrying,
        TextDelta,
        Waiting,
    )
    from .recovery import save_unsaved_text
    from .report import FoldReport
    from .session import Session
    from .snapshot import SECTIONS as SNAPSHOT_SECTIONS
    from .snapshot import Snapshot, is_snapshot_message
    from .store import Conversation, SearchHit, StoredFold, StoredMessage
    from .summarizers import RulesSummarizer, Summarizer, SummaryRequest
    from .terminal import json_safe, visible
    from .untrusted_json import well_formed
    from .workspace import ModelEntry, Workspace

_EXPORTS = {
    # the application API: what the TUI and the CLI drive
    "Session": "session",
    "OpenOptions": "options",
    "Workspace": "workspace",
    "ModelEntry": "workspace",
    "Usage": "chat",
    "FoldPlan": "chat",
    "CompressOptions": "compress",
    "compress_messages": "compress",
    # values the faces receive
    "Conversation": "store",
    "SearchHit": "store",
    "StoredFold": "store",
    "StoredMessage": "store",
    "ModelTarget": "providers",
    "ProviderEvent": "providers",
    "TextDelta": "providers",
    "ReasoningDelta": "providers",
    "Retrying": "providers",
    "Waiting": "providers",
    "Notice": "providers",
    "Finished": "providers",
    "Failed": "providers",
    "missing_key": "providers",
    "ReplyEvent": "chat",
    "ToolCalling": "events",
    "ToolCallsAnswered": "events",
    "status_suffix": "export",
    "load_settings": "config",
    "save_unsaved_text": "recovery",
    # errors
    "ConfigError": "errors",
    "DiskFull": "errors",
    "ExportError": "errors",
    "InputTooLarge": "errors",
    "StorageError": "errors",
    "UnknownModel": "errors",
    "CurrentTurnTooLarge": "errors",
    "FoldchatError": "errors",
    "FoldFailed": "errors",
    "InvalidMessage": "errors",
    "ProviderError": "errors",
    "UsageError": "errors",
    # fold events
    "FoldCompleted": "events",
    "FoldEvent": "events",
    "FoldProgress": "events",
    "FoldStarted": "events",
    # the fold pipeline and its parts
    "FoldReport": "report",
    "FoldRequest": "fold",
    "FoldResult": "fold",
    "fold_context": "fold",
    "Message": "messages",
    "ToolCall": "messages",
    "dump_messages": "messages",
    "parse_messages": "messages",
    "crash_line": "crash_log",
    "write_crash_log": "crash_log",
    "json_safe": "terminal",
    "well_formed": "untrusted_json",
    "visible": "terminal",
    "Decision": "policy",
    "FoldHistory": "policy",
    "FoldPolicy": "policy",
    "Trigger": "policy",
    "decide": "policy",
    "Snapshot": "snapshot",
    "is_snapshot_message": "snapshot",
    "RulesSummarizer": "summarizers",
    "Summarizer": "summarizers",
    "SummaryRequest": "summarizers",
}
_RENAMED = {"FoldFailedEvent": ("events", "FoldFailed"), "SNAPSHOT_SECTIONS": ("snapshot", "SECTIONS")}

__all__ = sorted([*_EXPORTS, *_RENAMED])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    if name in _RENAMED:
        module, attribute = _RENAMED[name]
        return getattr(import_module(f".{module}", __name__), attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
