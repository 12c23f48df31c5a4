"""Making a snapshot fit its token budget, deterministically (DESIGN §6.3, "then deterministic truncation").

Cuts go from least to most precious: text said twice (a goal that repeats a request, a request repeated
word for word) is said once; recent actions, incidental knowledge, questions, decisions, task
state, errors; then the artifact trail, least informative lines first (files only read, then successful
looks such as `ls`/`cat`, then other commands, then failures; an edited, created or deleted path is never
dropped); then constraints; then user requests are shortened (identifiers always kept), then the oldest are
merged into one line of their identifiers. Pinned text and the user's standing rules are never cut.
Shortening an item never cuts its message reference (`(#12)`): the text before it is shortened, and a
line that merges requests names all their messages.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .facts import clip, identifiers, is_standing_rule, shorten
from .references import body, merge_referenced, numbers_in, rewrite, tag
from .snapshot import Snapshot
from .summarizers.artifacts import RANK_CHANGED, terse, trail_rank

TRIM_ORDER = (
    "recent_actions",
    "key_knowledge",
    "open_questions",
    "decisions",
    "task_state",
    "errors_and_fixes",
    "artifacts",
    "constraints_and_preferences",
)


def _halve(items: list[str], keep_newest: bool) -> list[str]:
    keep = len(items) // 2
    if keep == 0:
        return []
    return items[-keep:] if keep_newest else items[:keep]


def fit_snapshot(snapshot: Snapshot, budget: int, size: Callable[[Snapshot], int]) -> Snapshot:
    """A copy of `snapshot` whose `size` is at most `budget` (or as close as pinned text allows)."""
    current = snapshot.model_copy(deep=True)
    if size(current) <= budget:
        return current
    current = _without_repeats(current)
    if size(current) <= budget:
        return current
    for name in TRIM_ORDER:
        if name == "artifacts":
            current = _trim_trail(current, budget, size)
            if size(current) <= budget:
                return current
            continue
        keep_newest = name in ("recent_actions", "task_state", "errors_and_fixes")
        protect = name == "constraints_and_preferences"  # the user's standing rules stay, like pins
        kept = [i for i in getattr(current, name) if protect and is_standing_rule(i)]
        trimmable = [i for i in getattr(current, name) if not (protect and is_standing_rule(i))]
        while trimmable and size(current) > budget:
            trimmable = _halve(trimmable, keep_newest)
            setattr(current, name, [*kept, *trimmable])
        if size(current) <= budget:
            return current
    for limit in (300, 160, 80):
        current.user_requests = [rewrite(r, partial(shorten, limit=limit)) for r in current.user_requests]
        current.overall_goal = shorten(current.overall_goal, limit)
        if size(current) <= budget:
            return current
    while len(current.user_requests) > 1 and size(current) > budget:
        half = max(1, len(current.user_requests) // 2)
        old, rest = current.user_requests[:half], current.user_requests[half:]
        ids = identifiers(" ".join(body(r) for r in old), limit=40)
        summary = (
            f"{len(old)} earlier requests; identifiers: {', '.join(ids)}" if ids else f"{len(old)} earlier requests"
        )
        current.user_requests = [tag(clip(summary, 600), [n for r in old for n in numbers_in(r)]), *rest]
        if half == 1:
            current.user_requests = current.user_requests[1:]
    if size(current) > budget:
        current.user_requests = [rewrite(r, lambda text: clip(text, 60)) for r in current.user_requests]
        current.overall_goal = clip(current.overall_goal, 60)
    return current


GOAL_ECHO_CHARS = 100


def _without_repeats(snapshot: Snapshot) -> Snapshot:
    """Text said twice costs twice and tells once: the cheapest cut, made before anything is lost.

    A goal that repeats a user request verbatim is shortened (the request keeps every word and
    identifier), and a request repeated word for word ("Keep going.") is listed once with its count and
    the numbers of every message that said it.
    """
    goal = snapshot.overall_goal
    if len(goal) > GOAL_ECHO_CHARS and any(goal in request for request in snapshot.user_requests):
        goal = clip(goal, GOAL_ECHO_CHARS)
    counts: dict[str, int] = {}
    for request in snapshot.user_requests:
        counts[body(request)] = counts.get(body(request), 0) + 1
    merged = merge_referenced(snapshot.user_requests)
    requests = [rewrite(r, lambda text: f"{text} (×{counts[text]})") if counts[body(r)] > 1 else r for r in merged]
    return snapshot.model_copy(update={"overall_goal": goal, "user_requests": requests})


def _trim_trail(snapshot: Snapshot, budget: int, size: Callable[[Snapshot], int]) -> Snapshot:
    """Shorten trail lines, then take their message references off, then drop them, least informative
    rank first and oldest first, until it fits.

    Within a rank the number of lines to drop is found by bisection, so fitting costs O(log n) renders.
    """
    # details go before lines: every path and command in short form beats half of them in full
    lines = [terse(line) for line in snapshot.artifacts]
    snapshot = snapshot.model_copy(update={"artifacts": lines})
    if size(snapshot) <= budget:
        return snapshot
    lines = _unreferenced(snapshot, budget, size)
    snapshot = snapshot.model_copy(update={"artifacts": lines})
    if size(snapshot) <= budget:
        return snapshot
    ranks = [trail_rank(line) for line in lines]
    for rank in sorted({r for r in ranks if r != RANK_CHANGED}, reverse=True):
        positions = [i for i, r in enumerate(ranks) if r == rank]

        def without(count: int, positions: list[int] = positions, lines: list[str] = lines) -> list[str]:
            gone = set(positions[:count])
            return [line for i, line in enumerate(lines) if i not in gone]

        if size(snapshot.model_copy(update={"artifacts": without(len(positions))})) > budget:
            lines = without(len(positions))  # this whole rank is not enough: drop it and go on
            ranks = [trail_rank(line) for line in lines]
            continue
        low, high = 0, len(positions)  # the fewest drops that fit lie in (low, high]
        while high - low > 1:
            middle = (low + high) // 2
            if size(snapshot.model_copy(update={"artifacts": without(middle)})) <= budget:
                high = middle
            else:
                low = middle
        return snapshot.model_copy(update={"artifacts": without(high)})
    return snapshot.model_copy(update={"artifacts": lines})


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
        return size(snapshot.model_copy(update={"artifacts": stripped(count)})) <= budget

    if not order or not fits(len(order)):
        return stripped(len(order))
    low, high = 0, len(order)  # the fewest that fit lie in (low, high]
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return stripped(high)
