"""Background pre-fold: the next automatic fold, prepared before it is due.

An LLM summarizer takes seconds per fold. Once usage passes the policy's reset ratio (and before the
trigger), a face runs `AutoFold.prepare_fold` in a worker thread; the plan it computes waits here, and at
the trigger `AutoFold.fold_if_needed` stores it with no summarizer call, if nothing it was computed from
has changed. Otherwise it is dropped and the normal fold runs, as it would have without it.

What a plan depends on (`FoldInputs`): every stored message that existed when it was computed (id,
text, status, supersession: an edit, regenerate or interrupted reply changes one), the active fold and
the user's edit of it (an undo changes it), the standing rules the user dropped, the pins, and the model
with its window. Messages sent after it was computed are not part of it: they join its verbatim tail.

Sizing (`FoldPolicy.ahead`): computed at usage `u` below the trigger `T`, the plan aims at the target minus
`T - u` and minus one more turn like the newest one, so that once the conversation has grown to the
trigger, the prepared fold plus what arrived since lands at or below the target (docs/design.md §3.7). When it
would not (a big paste since), it is not used.

`PreFold` owns at most one plan and lets at most one preparation run: a second `start` while one runs
gets no ticket, and `discard` (conversation switch) makes a running preparation's result unwanted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..store import StoredFold, StoredMessage
from .chain import FoldPlan


@dataclass(frozen=True)
class FoldInputs:
    """Everything a fold's result depends on besides the summarizer's own answer."""

    transcript: tuple[StoredMessage, ...]
    active_fold: StoredFold | None
    pinned: tuple[str, ...]
    dropped_rules: tuple[str, ...]
    model: str
    window: int

    def still_hold(self, current: FoldInputs) -> bool:
        """Whether a plan made from these inputs is still the fold of `current`'s older messages:
        the same messages (now followed by newer ones), fold, pins, dropped rules, model and window."""
        same_prefix = current.transcript[: len(self.transcript)] == self.transcript
        return same_prefix and replace(current, transcript=self.transcript) == self


@dataclass(frozen=True)
class PreparedFold:
    plan: FoldPlan
    inputs: FoldInputs


class PreFold:
    """At most one prepared fold and at most one preparation at a time (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._running = False
        self._generation = 0
        self._pending: PreparedFold | None = None
        self._preparing: FoldInputs | None = None  # what the running preparation was started from
        self.failure: str | None = None
        """Why the latest preparation made no plan, if it failed (it is also logged)."""

    @property
    def running(self) -> bool:
        return self._running

    @property
    def waiting(self) -> bool:
        """A plan is waiting for the trigger (whether it still holds is checked when it is used)."""
        return self._pending is not None

    def start(self, inputs: FoldInputs | None = None) -> int | None:
        """A ticket for a new preparation (of a plan from `inputs`), or None while another one runs (never two
        at once)."""
        with self._lock:
            if self._running:
                return None
            self._running = True
            self._preparing = inputs
            return self._generation

    def running_for(self, current: FoldInputs) -> bool:
        """A preparation runs whose plan would still hold for `current`: worth waiting for. One started from
        what has changed since (an undo, an edit) is dropped here, so nobody waits for it to end."""
        with self._lock:
            if not self._running:
                return False
            if self._preparing is None or self._preparing.still_hold(current):
                return True
            self._generation += 1  # its result arrives for inputs that are gone
            return False

    def finish(self, ticket: int, prepared: PreparedFold | None) -> None:
        """End the preparation `ticket`; its plan is kept unless it was discarded meanwhile."""
        with self._lock:
            self._running = False
            self._preparing = None
            if ticket == self._generation and prepared is not None:
                self._pending = prepared
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) for a running preparation to end: at the trigger, one that is
        almost done beats starting the same summarizer calls again."""
        with self._idle:
            self._idle.wait_for(lambda: not self._running, timeout)

    def discard(self) -> None:
        """Forget the plan, and the one being prepared when it arrives (a conversation switch)."""
        with self._lock:
            self._generation += 1
            self._pending = None

    def holds(self, current: FoldInputs) -> bool:
        """A plan is waiting and still fits `current`; a stale one is dropped."""
        with self._lock:
            if self._pending is not None and not self._pending.inputs.still_hold(current):
                self._pending = None
            return self._pending is not None

    def take(self, current: FoldInputs) -> FoldPlan | None:
        """The waiting plan if it still fits `current` (it is removed either way)."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is None or not pending.inputs.still_hold(current):
            return None
        return pending.plan


def newest_turn(counts: Sequence[int], roles: Sequence[str]) -> int:
    """Tokens of the newest turn (the last user message and everything after it)."""
    starts = [i for i, role in enumerate(roles) if role == "user"]
    return sum(counts[starts[-1] :]) if starts else 0
