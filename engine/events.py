"""Progress of a fold, as plain values the engine hands to a callback (DESIGN §6).

The UI turns them into what the user watches; the CLI ignores them or prints a line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .report import FoldReport


@dataclass(frozen=True)
class FoldStarted:
    trigger: str
    messages: int
    tokens: int


@dataclass(frozen=True)
class FoldProgress:
    """One step of the pipeline: `split`, `condense`, `summarize` (chunk done/total), `consolidate`,
    `rebuild`."""

    step: str
    done: int
    total: int
    detail: str = ""


@dataclass(frozen=True)
class FoldCompleted:
    report: FoldReport


@dataclass(frozen=True)
class FoldFailed:
    error: str


FoldEvent = FoldStarted | FoldProgress | FoldCompleted | FoldFailed
EventSink = Callable[[FoldEvent], Any]


def ignore_events(_event: FoldEvent) -> None:
    """The default sink: nobody is watching."""
