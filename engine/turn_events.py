"""What a turn yields besides the fold's and the reply's own events (see `turn.py`). Light on purpose: the
app's first screen imports these names, and the turn itself loads the database and pydantic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import Usage
    from .fold.report import FoldReport


@dataclass(frozen=True)
class PromptStored:
    """The prompt is committed (before anything can fail) under this id."""

    message_id: int


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
    nobody consented to would make room. It is kept as unsent (`message_id`, out of every context) and no
    reply is asked for."""

    reason: str
    message_id: int | None
    needs_fold: bool = False


@dataclass(frozen=True)
class ReplyAsked:
    """The fold step is over and the reply is asked for: its events follow (a face shows the wait now)."""


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over: the gauge's new usage, whether a pre-fold is due (`AutoFold.prepare_fold`), and the
    stored reply's id (None when no reply was asked for)."""

    usage: Usage
    prefold_due: bool
    reply_id: int | None
