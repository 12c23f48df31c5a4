"""What a turn yields besides the fold's and the reply's own events (see `turn.py`). Light on purpose: the
app's first screen imports these names, and the turn itself loads the database and pydantic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .context import Usage
    from .fold.report import FoldReport
    from .store import Conversation
    from .store.usage_rows import UsageTotals


@dataclass(frozen=True)
class PromptStored:
    """The prompt is committed (before anything can fail) under `message_id`; read in the same trip, what a
    face shows at once: the gauge's `usage` with the prompt in it, and the `conversation` (stored with its
    first prompt, titled by it)."""

    message_id: int
    usage: Usage
    conversation: Conversation | None


@dataclass(frozen=True)
class Folded:
    """The history was folded before the reply; `report` says how."""

    report: FoldReport


@dataclass(frozen=True)
class FoldSkipped:
    """The policy asked for a fold that was not made: the user declined, nobody could be asked, automatic
    folds are paused, or the fold failed (`failed`). The reply goes unfolded; `reason` says why."""

    reason: str
    failed: bool = False
    report: FoldReport | None = None


@dataclass(frozen=True)
class Refused:
    """The prompt cannot be sent: it cannot fit the window whatever is folded, or (`needs_fold`) only a fold
    nobody consented to would make room. No reply is asked for. Refused `up_front` (the prompt alone, with
    the system prompts and the reply's reserve, is over the window: `Context.too_big_to_send`), nothing is
    stored and the face gives the text back to shorten; refused later, it is kept as unsent (`message_id`,
    out of every context)."""

    reason: str
    message_id: int | None
    needs_fold: bool = False
    up_front: bool = False


@dataclass(frozen=True)
class ReplyAsked:
    """The fold step is over and the reply is asked for: its events follow (a face shows the wait now)."""


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over: the gauge's new usage, whether a pre-fold is due (`AutoFold.prepare_fold`), the
    stored reply's id (None when no reply was asked for), what the conversation's replies have cost so far
    (`spent`) and every message's number (`Context.message_numbers`), all read in one trip: a face asks
    nothing again after the end."""

    usage: Usage
    prefold_due: bool
    reply_id: int | None
    spent: UsageTotals
    numbers: Mapping[int, int]
