"""The Foldchat engine: UI-free building blocks for folding chat histories.

Import from here; `__all__` is the supported surface (a test pins it), and the TUI and the CLI import
nothing else (a test parses their imports). `Session` is the application API: one open conversation,
its model, sending, streaming and folding. Names load on first use, so `from foldchat.engine import
UsageError` (what the CLI needs to start) does not pull in pydantic or litellm.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors (`X as X`: an explicit re-export)
    from .archive import Archive as Archive
    from .attachments import (
        Attachment as Attachment,
        changed_since as changed_since,
        human_size as human_size,
        read_attachment as read_attachment,
        said as said,
        shown_attachments as shown_attachments,
        user_message as user_message,
    )
    from .blocking import off_loop as off_loop
    from .cancelling import in_thread as in_thread
    from .config import LocalModelSettings as LocalModelSettings, load_settings as load_settings
    from .crash_log import crash_line as crash_line, write_crash_log as write_crash_log
    from .errors import (
        ConfigError as ConfigError,
        CurrentTurnTooLarge as CurrentTurnTooLarge,
        DiskFull as DiskFull,
        ExportError as ExportError,
        FoldchatError as FoldchatError,
        FoldFailed as FoldFailed,
        InputTooLarge as InputTooLarge,
        InvalidMessage as InvalidMessage,
        ProviderError as ProviderError,
        StorageError as StorageError,
        UnknownModel as UnknownModel,
        UsageError as UsageError,
    )
    from .events import (
        STOPPED as STOPPED,
        FoldCompleted as FoldCompleted,
        FoldEvent as FoldEvent,
        FoldFailed as _FoldFailedEvent,
        FoldProgress as FoldProgress,
        FoldStarted as FoldStarted,
        PassagesRecalled as PassagesRecalled,
        ToolCalling as ToolCalling,
        ToolCallsAnswered as ToolCallsAnswered,
    )
    from .export import fold_line as fold_line, status_suffix as status_suffix
    from .facts import is_standing_rule as is_standing_rule
    from .fold.chain import FoldPlan as FoldPlan
    from .fold.compress import CompressOptions as CompressOptions, compress_messages as compress_messages
    from .fold.pipeline import FoldRequest as FoldRequest, FoldResult as FoldResult, fold_context as fold_context
    from .fold.report import FoldReport as FoldReport
    from .headroom import Usage as Usage, turns_words as turns_words
    from .input_limit import max_input_bytes as max_input_bytes
    from .messages import (
        Message as Message,
        ToolCall as ToolCall,
        dump_messages as dump_messages,
        parse_messages as parse_messages,
    )
    from .options import OpenOptions as OpenOptions
    from .policy import (
        Decision as Decision,
        FoldHistory as FoldHistory,
        FoldPolicy as FoldPolicy,
        Trigger as Trigger,
        decide as decide,
    )
    from .providers.adapt import takes_images as takes_images
    from .providers.events import (
        Failed as Failed,
        Finished as Finished,
        Notice as Notice,
        ProviderEvent as ProviderEvent,
        ReasoningDelta as ReasoningDelta,
        Retrying as Retrying,
        TextDelta as TextDelta,
        ToolCallDelta as ToolCallDelta,
        UsageReport as UsageReport,
        Waiting as Waiting,
    )
    from .providers.target import ModelTarget as ModelTarget
    from .recall_wording import line_without_recall as line_without_recall
    from .recalled import Recalled as Recalled
    from .recovery import save_unsaved_text as save_unsaved_text
    from .regular_file import read_regular as read_regular
    from .replies import ReplyEvent as ReplyEvent
    from .replies_cut import is_cut_mark as is_cut_mark
    from .session import Session as Session
    from .snapshot import (
        SECTIONS as _SNAPSHOT_SECTIONS,
        Snapshot as Snapshot,
        is_snapshot_message as is_snapshot_message,
    )
    from .snapshot_edit import edit_refusal as edit_refusal
    from .spend import fold_economics as fold_economics, reply_line as reply_line, total_line as total_line
    from .store import (
        Conversation as Conversation,
        SearchHit as SearchHit,
        StoredFold as StoredFold,
        StoredMessage as StoredMessage,
    )
    from .store.usage_rows import UsageTotals as UsageTotals, totals as _usage_totals, usages as _reply_usages
    from .summarizers import (
        RulesSummarizer as RulesSummarizer,
        Summarizer as Summarizer,
        SummaryRequest as SummaryRequest,
    )
    from .turn import Consent as Consent, TurnEvent as TurnEvent
    from .turn_events import (
        Folded as Folded,
        FoldSkipped as FoldSkipped,
        PromptStored as PromptStored,
        Refused as Refused,
        ReplyAsked as ReplyAsked,
        TurnEnded as TurnEnded,
    )
    from .untrusted_json import well_formed as well_formed
    from .untrusted_text import json_safe as json_safe, visible as visible
    from .workspace import ModelEntry as ModelEntry, Workspace as Workspace

    FoldFailedEvent = _FoldFailedEvent  # renamed names: an alias is what a type checker re-exports
    SNAPSHOT_SECTIONS = _SNAPSHOT_SECTIONS
    usage_totals = _usage_totals
    reply_usages = _reply_usages

_EXPORTS = {
    # the application API: what the TUI and the CLI drive
    "Session": "session",
    "OpenOptions": "options",
    "Workspace": "workspace",
    "Archive": "archive",
    "ModelEntry": "workspace",
    "Usage": "headroom",
    "turns_words": "headroom",
    "FoldPlan": "fold.chain",
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
    # the rest of a reply's events, which a face names to pass over (a `match` over `ReplyEvent` is whole)
    "ToolCallDelta": "providers.events",
    "UsageReport": "providers.events",
    "missing_key": "providers.stream",
    "ReplyEvent": "replies",
    "STOPPED": "events",
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
    "PassagesRecalled": "events",
    "Recalled": "recalled",
    "status_suffix": "export",
    "fold_line": "export",
    "load_settings": "config",
    "max_input_bytes": "input_limit",
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
    "json_safe": "untrusted_text",
    "well_formed": "untrusted_json",
    # reading files, stopping a fold's requests, what a conversation cost
    "read_regular": "regular_file",
    "in_thread": "cancelling",
    "off_loop": "blocking",
    "is_cut_mark": "replies_cut",
    "edit_refusal": "snapshot_edit",
    "fold_economics": "spend",
    "reply_line": "spend",
    "total_line": "spend",
    "UsageTotals": "store.usage_rows",
    "LocalModelSettings": "config",
    "visible": "untrusted_text",
    "Decision": "policy",
    "FoldHistory": "policy",
    "FoldPolicy": "policy",
    "Trigger": "policy",
    "decide": "policy",
    "Snapshot": "snapshot",
    "is_snapshot_message": "snapshot",
    "line_without_recall": "recall_wording",
    "is_standing_rule": "facts",
    "RulesSummarizer": "summarizers",
    "Summarizer": "summarizers",
    "SummaryRequest": "summarizers",
}
_RENAMED = {
    "FoldFailedEvent": ("events", "FoldFailed"),
    "SNAPSHOT_SECTIONS": ("snapshot", "SECTIONS"),
    "usage_totals": ("store.usage_rows", "totals"),
    "reply_usages": ("store.usage_rows", "usages"),
}

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
