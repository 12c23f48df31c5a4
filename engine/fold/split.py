"""Where to cut the history into a folded head and a verbatim tail (docs/design.md §6.2).

The tail always holds the current user message and the newest exchange after it, and never starts
inside a tool call/result run. Candidates, first that succeeds wins:
1. the earliest user-turn start whose tail fits the budget and fills most of it;
2. the earliest pair-safe boundary whose tail fits the budget (the tail takes what the snapshot left);
5. inside the current turn (an agent loop: one request, many tool exchanges): the user message stays
   verbatim, older assistant/tool exchanges go to the head, the tail resumes at the earliest assistant
   message that fits (at least the newest exchange);
3. the latest pair-safe boundary before the current turn (the smallest tail that is still safe);
4. best effort: the boundary that separates the fewest tool results from their calls.
`floor` is the first index the tail may start at (a re-fold folds at least what the fold it replaces did).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from ..messages import Message

FILL_RATIO = 0.7  # a user-turn split must fill this much of the tail budget, else a finer split is used


@dataclass(frozen=True)
class Split:
    index: int
    phase: int
    tail_tokens: int
    kept_turn_start: int | None = None
    """Set when the split is inside the current turn: that user message is kept before `messages[index:]`."""

    def head(self, messages: Sequence[Message]) -> list[Message]:
        return [m for i, m in enumerate(messages[: self.index]) if i != self.kept_turn_start]

    def tail(self, messages: Sequence[Message]) -> list[Message]:
        kept = [messages[self.kept_turn_start]] if self.kept_turn_start is not None else []
        return [*kept, *messages[self.index :]]


def newest_exchange_start(messages: Sequence[Message], keep_from: int) -> int:
    """Index of the last assistant message after the current user message (len(messages) if none)."""
    for index in range(len(messages) - 1, keep_from, -1):
        if messages[index].role == "assistant":
            return index
    return len(messages)


def _broken_pairs(messages: Sequence[Message], index: int) -> int:
    """Tool results cut off from their call by a split at `index` (the tail's leading tool run)."""
    broken = 0
    while index + broken < len(messages) and messages[index + broken].role == "tool":
        broken += 1
    return broken


def _suffix(counts: Sequence[int]) -> list[int]:
    return [*list(accumulate(reversed(counts)))[::-1], 0]


def safe_split(
    messages: Sequence[Message],
    counts: Sequence[int],
    budget: int,
    keep_from: int,
    floor: int = 1,
    keep_turn_start: bool = True,
) -> Split | None:
    """The split for `messages` (no system messages) with per-message `counts` (see the module docstring).

    `keep_from` is where the current turn starts; `keep_turn_start` is False when that message is an
    earlier snapshot (it is merged, not kept). Returns None when nothing can be folded.
    """
    suffix = _suffix(counts)
    fitting = _fitting_split(messages, suffix, budget, keep_from, floor)
    if fitting is not None:
        return fitting
    inside = turn_split(messages, counts, budget, keep_from, floor, keep_turn_start)
    if inside is not None:
        return inside
    candidates = range(max(1, floor), keep_from + 1)
    if not messages or not candidates:
        return None
    for i in reversed(candidates):
        if messages[i].role != "tool":
            return Split(i, 3, suffix[i])
    best = min(candidates, key=lambda i: (_broken_pairs(messages, i), -i))
    return Split(best, 4, suffix[best])


def _fitting_split(
    messages: Sequence[Message], suffix: Sequence[int], budget: int, keep_from: int, floor: int
) -> Split | None:
    """Phases 1 and 2: a split before the current turn whose tail fits `budget`."""
    candidates = range(max(1, floor), keep_from + 1)
    turn_start = next((i for i in candidates if messages[i].role == "user" and suffix[i] <= budget), None)
    if turn_start is not None and suffix[turn_start] >= FILL_RATIO * budget:
        return Split(turn_start, 1, suffix[turn_start])
    boundary = next((i for i in candidates if messages[i].role != "tool" and suffix[i] <= budget), None)
    if boundary is not None:
        return Split(boundary, 2, suffix[boundary])
    return None


def turn_split(
    messages: Sequence[Message],
    counts: Sequence[int],
    budget: int,
    keep_from: int,
    floor: int = 1,
    keep_turn_start: bool = True,
) -> Split | None:
    """Phase 5: fold the current turn's older exchanges; None when it has no exchange before the newest."""
    newest = newest_exchange_start(messages, keep_from)
    candidates = [
        i for i in range(max(keep_from + 2, floor), newest + 1) if i < len(messages) and messages[i].role == "assistant"
    ]
    if not candidates:
        return None
    suffix = _suffix(counts)
    user = counts[keep_from] if keep_turn_start else 0
    index = next((i for i in candidates if user + suffix[i] <= budget), candidates[-1])
    return Split(index, 5, user + suffix[index], kept_turn_start=keep_from if keep_turn_start else None)
