"""Progress of a fold, as plain values the engine hands to a callback (docs/design.md §6), and the tool rounds
of a reply (the model recalls what was folded), which a reply's stream yields.

The UI turns them into what the user watches; the CLI ignores them or prints a line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .fold.report import FoldReport
from .messages import Message, ToolCall

if TYPE_CHECKING:
    from .recalled import Recalled  # sqlite3 and the index stay off the first screen's imports


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


@dataclass(frozen=True)
class ToolCalling:
    """The model asked for tools and Foldchat runs them now (the UI says "recalling …")."""

    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class ToolCallsAnswered:
    """One tool round is stored: the assistant's call message and one result per call, with their
    transcript ids. `more`: the model is asked again with the results (False when the round limit hit);
    `room_left`: the window has room for another round of recalled text (else no tool is offered next)."""

    call_id: int
    call: Message
    results: tuple[tuple[int, Message], ...]
    more: bool
    room_left: bool = True


@dataclass(frozen=True)
class PassagesRecalled:
    """Automatic recall put `recalled` into the request that answers user message `message_id` (stored
    with it; a face shows "recalled #12, #48 · 312 tokens" under that message)."""

    message_id: int
    recalled: Recalled


ToolEvent = ToolCalling | ToolCallsAnswered | PassagesRecalled


STOPPED = "stopped before the end"
"""Why a reply that was stopped (Esc, Ctrl-C, the reader gone) is incomplete: stored, and shown live."""
