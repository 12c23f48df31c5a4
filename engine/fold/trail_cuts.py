"""Cutting the artifact trail to a snapshot's budget (a step of `fit.fit_snapshot`, docs/design.md §6.3).

Its lines are shortened first, then lose their message references, then go, least informative rank first
(files only read, successful looks, other commands, failures); an edited, created or deleted path is never
dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..references import body, numbers_in
from ..snapshot import Snapshot
from ..summarizers.artifacts import RANK_CHANGED, terse, trail_rank


def trim_trail(snapshot: Snapshot, budget: int, size: Callable[[Snapshot], int]) -> Snapshot:
    """Shorten trail lines, then take their message references off, then drop them, least informative
    rank first and oldest first, until it fits.

    Within a rank the number of lines to drop is found by bisection, so fitting costs O(log n) renders.
    """
    # details go before lines: every path and command in short form beats half of them in full
    lines = [terse(line) for line in snapshot.artifacts]
    snapshot = replace(snapshot, artifacts=lines)
    if size(snapshot) <= budget:
        return snapshot
    lines = _unreferenced(snapshot, budget, size)
    snapshot = replace(snapshot, artifacts=lines)
    if size(snapshot) <= budget:
        return snapshot
    ranks = [trail_rank(line) for line in lines]
    for rank in sorted({r for r in ranks if r != RANK_CHANGED}, reverse=True):
        positions = [i for i, r in enumerate(ranks) if r == rank]

        def without(count: int, positions: list[int] = positions, lines: list[str] = lines) -> list[str]:
            gone = set(positions[:count])
            return [line for i, line in enumerate(lines) if i not in gone]

        if size(replace(snapshot, artifacts=without(len(positions)))) > budget:
            lines = without(len(positions))  # this whole rank is not enough: drop it and go on
            ranks = [trail_rank(line) for line in lines]
            continue
        low, high = 0, len(positions)  # the fewest drops that fit lie in (low, high]
        while high - low > 1:
            middle = (low + high) // 2
            if size(replace(snapshot, artifacts=without(middle))) <= budget:
                high = middle
            else:
                low = middle
        return replace(snapshot, artifacts=without(high))
    return replace(snapshot, artifacts=lines)


def _unreferenced(snapshot: Snapshot, budget: int, size: Callable[[Snapshot], int]) -> list[str]:
    """Trail lines with the fewest message references taken off that fits, least precious lines first.

    A path or command named without its messages beats one dropped: `recall` by its text still finds
    them. Changed paths lose theirs last."""
    lines = list(snapshot.artifacts)
    ranks = [trail_rank(line) for line in lines]
    order = sorted((i for i, line in enumerate(lines) if numbers_in(line)), key=lambda i: (-ranks[i], i))

    def stripped(count: int) -> list[str]:
        bare = set(order[:count])
        return [body(line) if i in bare else line for i, line in enumerate(lines)]

    def fits(count: int) -> bool:
        return size(replace(snapshot, artifacts=stripped(count))) <= budget

    if not order or not fits(len(order)):
        return stripped(len(order))
    low, high = 0, len(order)  # the fewest that fit lie in (low, high]
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return stripped(high)
