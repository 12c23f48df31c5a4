"""The Foldchat engine: UI-free building blocks for folding chat histories.

Import from here; `__all__` is the supported surface (a test pins it). Names load on first use, so
`import foldchat.engine.errors` (what the CLI needs to start) does not pull in pydantic or litellm.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CurrentTurnTooLarge": "errors",
    "FoldchatError": "errors",
    "FoldFailed": "errors",
    "InvalidMessage": "errors",
    "UsageError": "errors",
    "FoldCompleted": "events",
    "FoldEvent": "events",
    "FoldProgress": "events",
    "FoldStarted": "events",
    "FoldReport": "fold",
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
    "visible": "terminal",
    "Decision": "policy",
    "FoldHistory": "policy",
    "FoldPolicy": "policy",
    "Trigger": "policy",
    "decide": "policy",
    "Snapshot": "snapshot",
    "RulesSummarizer": "summarizers",
    "Summarizer": "summarizers",
    "SummaryRequest": "summarizers",
}
_RENAMED = {"FoldFailedEvent": ("events", "FoldFailed")}

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
