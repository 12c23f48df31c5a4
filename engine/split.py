"""Where to cut the history into a folded head and a verbatim tail (DESIGN §6.2).

The tail is `messages[index:]`. It always holds the current turn (the last user message and what
follows), and never starts inside a tool call/result run. Four phases, first that succeeds wins:
1. the earliest user-turn start whose tail fits the budget;
2. the earliest pair-safe boundary whose tail fits the budget;
3. the latest pair-safe boundary (the smallest tail that is still safe);
4. best effort: the boundary that separates the fewest tool results from their calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from .messages import Message


@dataclass(frozen=True)
class Split:
    index: int
    phase: int
    tail_tokens: int


def _broken_pairs(messages: Sequence[Message], index: int) -> int:
    """Tool results cut off from their call by a split at `index` (the tail's leading tool run)."""
    broken = 0
    while index + broken < len(messages) and messages[index + broken].role == "tool":
        broken += 1
    return broken


def safe_split(messages: Sequence[Message], counts: Sequence[int], budget: int, keep_from: int) -> Split | None:
    """The split for `messages` (no system messages) with per-message `counts`.

    `keep_from` is the first index that must stay verbatim (the current turn). Returns None when
    nothing can be folded (the tail would have to start at 0).
    """
    if keep_from <= 0 or not messages:
        return None
    suffix = [*list(accumulate(reversed(counts)))[::-1], 0]
    candidates = range(1, keep_from + 1)

    def pair_safe(i: int) -> bool:
        return messages[i].role != "tool"

    for i in candidates:
        if messages[i].role == "user" and suffix[i] <= budget:
            return Split(i, 1, suffix[i])
    for i in candidates:
        if pair_safe(i) and suffix[i] <= budget:
            return Split(i, 2, suffix[i])
    for i in reversed(candidates):
        if pair_safe(i):
            return Split(i, 3, suffix[i])
    best = min(candidates, key=lambda i: (_broken_pairs(messages, i), -i))
    return Split(best, 4, suffix[best])
