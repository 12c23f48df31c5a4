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
    from .attachments import (
        Attachment,
        changed_since,
        human_size,
        read_attachment,
        said,
        shown_attachments,
        user_message,
    )
    from .chat import FoldPlan, ReplyEvent, Usage
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
    from .fold.compress import CompressOptions, compress_messages
    from .fold.pipeline import FoldRequest, FoldResult, fold_context
    from .fold.report import FoldReport
    from .messages import Message, ToolCall, dump_messages, parse_messages
    from .options import OpenOptions
    from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
    from .providers.adapt import takes_images
    from .providers.events import Failed, Finished, Notice, ProviderEvent, ReasoningDelta, Retrying, TextDelta, Waiting
    from .providers.target import ModelTarget
    from .recovery import save_unsaved_text
    from .session import Session
    from .snapshot import SECTIONS as SNAPSHOT_SECTIONS
    from .snapshot import Snapshot, is_snapshot_message
    from .store import Conversation, SearchHit, StoredFold, StoredMessage
    from .summarizers import RulesSummarizer, Summarizer, SummaryRequest
    from .terminal import json_safe, visible
    from .turn import Consent, TurnEvent
    from .turn_events import Folded, FoldSkipped, PromptStored, Refused, ReplyAsked, TurnEnded
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
    "CompressOptions": "fold.compress",
    "compress_messages": "fold.compress",
    # values the faces receive
    "Conversation": "store",
    "SearchHit": "store",
    "StoredFold": "store",
    "StoredMessage": "store",
    "ModelTarget": "providers.target",
    "ProviderEvent": "providers.events",
    "TextDelta": "providers.events",
    "ReasoningDelta": "providers.events",
    "Retrying": "providers.events",
    "Waiting": "providers.events",
    "Notice": "providers.events",
    "Finished": "providers.events",
    "Failed": "providers.events",
    "missing_key": "providers.stream",
    "ReplyEvent": "chat",
    "Attachment": "attachments",
    "read_attachment": "attachments",
    "changed_since": "attachments",
    "shown_attachments": "attachments",
    "said": "attachments",
    "human_size": "attachments",
    "user_message": "attachments",
    "takes_images": "providers.adapt",
    "TurnEvent": "turn",
    "Consent": "turn",
    "PromptStored": "turn_events",
    "Folded": "turn_events",
    "FoldSkipped": "turn_events",
    "Refused": "turn_events",
    "TurnEnded": "turn_events",
    "ReplyAsked": "turn_events",
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
    "FoldReport": "fold.report",
    "FoldRequest": "fold.pipeline",
    "FoldResult": "fold.pipeline",
    "fold_context": "fold.pipeline",
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
