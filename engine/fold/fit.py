"""Making a snapshot fit its token budget, deterministically (docs/design.md §6.3, "then deterministic truncation").

Cuts go from least to most informative, and nothing is cut while the snapshot fits. Text said twice is
said once; then what carries nothing (greetings, thanks, acknowledgements) goes; then an agent's
bookkeeping (recent actions, identifiers merely mentioned, questions); then long items are shortened,
oldest first, to their informative statements (whole statements, every message reference kept, so
`recall` brings the original back); then the artifact trail (least informative lines first: files only
read, successful looks such as `ls`/`cat`, other commands, failures; an edited, created or deleted path is
never dropped); then items are dropped by salience (information per token, `salience`), least first,
values replaced by a later message before anything current; user requests dropped that way are named
in one line by their message numbers. Pinned text and the user's standing rules are never cut.

Which sections each cut applies to, and the order sections are halved in, is the schema's (`Section` on
each field of `snapshot.Snapshot`): `cut_order` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from dataclasses import replace
from functools import partial

from ..facts import CURRENT_MARK, FOCUS_MARK, REPLACED_MARK, clip, is_pinned_rule
from ..references import body, merge_referenced, numbers_in, rewrite, tag
from ..salience import salience, values
from ..snapshot import SECTION_ROLES, Snapshot, with_sections
from .item_cuts import MENTIONED, REPLACED_STATEMENT, VALUES, condensed, listed_once, said, values_only
from .supersede import stale_values_marked
from .trail_cuts import trim_trail

Size = Callable[[Snapshot], int]
Step = Callable[[Snapshot, int, Size], Snapshot]
STATEMENT_SECTIONS = tuple(name for name, roles in SECTION_ROLES.items() if roles.statements)
PLEASANTRY_SECTIONS = tuple(name for name, roles in SECTION_ROLES.items() if roles.pleasantries)
NEAR_DUPLICATE_SECTIONS = tuple(name for name, roles in SECTION_ROLES.items() if roles.near_duplicates)
SHORTEN_TO = (400, 240)
SHORTEN_FURTHER = (200, 120)
CARRIED_WEIGHT = 2.0
LOW_SALIENCE = 0.08  # about one value in a dozen words: a request or remark that names nothing
LEFT_OUT = "left out of this snapshot (recall them by number)"
"""How the line naming the requests a fit left out ends: "3 requests left out of this snapshot (recall them by
number) (#1, #4, #9)"; what finds the line again, in this fold and the next."""
REPLACED_WEIGHT = 0.25  # a value a later message replaced is history: it goes before current facts
PARTLY_REPLACED_WEIGHT = 0.7
CURRENT_WEIGHT = 2.0


def _halve(items: list[str], keep_newest: bool) -> list[str]:
    keep = len(items) // 2
    if keep == 0:
        return []
    return items[-keep:] if keep_newest else items[:keep]


def fit_snapshot(snapshot: Snapshot, budget: int, size: Size, carried: frozenset[str] = frozenset()) -> Snapshot:
    """A copy of `snapshot` whose `size` is at most `budget` (or as close as pinned text allows).

    `carried`: the items (without references) an earlier snapshot already carried. They won a fit before,
    so they are shortened before they are dropped and weigh more than new items of the same salience."""
    current = deepcopy(snapshot)
    focus = [i for i in snapshot.key_knowledge if i.startswith(FOCUS_MARK)]
    for step in cut_order(carried):
        if size(current) <= budget:
            return current
        current = step(current, budget, size)
        if focus and not any(i.startswith(FOCUS_MARK) for i in current.key_knowledge):
            current.key_knowledge = [*focus, *current.key_knowledge]  # what the user asked the fold to keep
    if size(current) > budget:
        current.user_requests = [rewrite(r, lambda text: clip(text, 60)) for r in current.user_requests]
        current.overall_goal = clip(current.overall_goal, 60)
    return current


def cut_order(carried: frozenset[str] = frozenset()) -> tuple[Step, ...]:
    """The cuts `fit_snapshot` makes, in order, least informative first; the sections the schema marks
    halved are halved in the order of their `halving_rank`, at four points of it."""
    return (
        lambda s, _b, _z: _without_repeats(s),
        lambda s, _b, _z: _without_pleasantries(s),
        *_halvings(above=0, through=1),  # an agent's bookkeeping
        _without_mentions,
        *_halvings(above=1, through=2),
        partial(_shortened, limits=SHORTEN_TO),
        partial(_by_salience, below=LOW_SALIENCE),
        partial(_rules_within_share, carried=carried),
        *_halvings(above=2, through=4),
        trim_trail,
        partial(_shortened, limits=SHORTEN_FURTHER, only=carried),
        partial(_to_values, carried=carried),
        partial(_by_salience, carried=carried),
        *_halvings(above=4),  # the last before the standing rules themselves
        _rules_past_budget,
    )


def _halvings(above: int, through: int | None = None) -> list[Step]:
    """Halving steps for the sections whose `halving_rank` is past `above` and at most `through`, in rank order."""
    ranked = sorted(
        (roles.halving_rank, name)
        for name, roles in SECTION_ROLES.items()
        if roles.halving_rank is not None
        and roles.halving_rank > above
        and (through is None or roles.halving_rank <= through)
    )
    return [partial(_halving, name=name, keep_newest=not SECTION_ROLES[name].keep_oldest) for _, name in ranked]


def _halving(snapshot: Snapshot, budget: int, size: Size, name: str, keep_newest: bool) -> Snapshot:
    """Halve a section until it fits or is empty; the user's standing rules in it are never cut."""
    protect = name == "constraints_and_preferences"
    kept = [i for i in getattr(snapshot, name) if protect and is_pinned_rule(i)]
    trimmable = [i for i in getattr(snapshot, name) if not (protect and is_pinned_rule(i))]
    current = snapshot
    while trimmable and size(current) > budget:
        trimmable = _halve(trimmable, keep_newest)
        current = with_sections(current, {name: [*kept, *trimmable]})
    return current


def _rules_past_budget(snapshot: Snapshot, budget: int, size: Size) -> Snapshot:
    """The last resort: standing rules that alone outgrow the snapshot's room are no longer carried, the
    oldest first (a later rule is likelier to be the one in force). The fold reports which ones (400
    rules folded to 23k tokens on an 8k window, and every later request was refused)."""
    rules = snapshot.constraints_and_preferences
    pinned = [n for n, item in enumerate(rules) if is_pinned_rule(item)]

    def without(count: int) -> Snapshot:
        gone = set(pinned[:count])
        return replace(snapshot, constraints_and_preferences=[x for n, x in enumerate(rules) if n not in gone])

    return without(_fewest(len(pinned), lambda count: size(without(count)) <= budget))


def rules_not_carried(before: Snapshot, after: Snapshot) -> list[str]:
    """The standing rules of `before` that `after` (its fitted copy) no longer carries, those read as
    replaced too: a rule is never dropped without being named."""
    kept, rules = {body(item) for item in after.constraints_and_preferences}, before.constraints_and_preferences
    return [item for item in rules if is_pinned_rule(REPLACED_STATEMENT.sub("", body(item))) and body(item) not in kept]


RULES_SHARE = 0.5


def _rules_within_share(snapshot: Snapshot, budget: int, size: Size, carried: frozenset[str] = frozenset()) -> Snapshot:
    """Constraints and preferences beyond `RULES_SHARE` of the budget lose their least informative
    broad-worded items (the strong standing rules stay): a task prompt full of "must" must not crowd out
    everything else."""

    def rules_size(candidate: Snapshot) -> int:
        return size(Snapshot(constraints_and_preferences=candidate.constraints_and_preferences))

    share = int(RULES_SHARE * budget)
    if rules_size(snapshot) <= share:
        return snapshot
    items = snapshot.constraints_and_preferences
    ranked = sorted(  # an update in force goes last, as in `_by_salience`
        (CURRENT_MARK in item, _score(item) * (CARRIED_WEIGHT if body(item) in carried else 1), i)
        for i, item in enumerate(items)
        if not is_pinned_rule(item)
    )

    def without(count: int) -> Snapshot:
        gone = {i for *_, i in ranked[:count]}
        return replace(snapshot, constraints_and_preferences=[x for i, x in enumerate(items) if i not in gone])

    return without(_fewest(len(ranked), lambda n: rules_size(without(n)) <= share))


def _without_pleasantries(snapshot: Snapshot) -> Snapshot:
    """Greetings, thanks and acknowledgements tell the next model nothing it can use."""
    update = {name: [i for i in getattr(snapshot, name) if salience(said(i)) > 0] for name in PLEASANTRY_SECTIONS}
    return with_sections(snapshot, update)


MENTIONS_SHARE = 0.15


def _without_mentions(snapshot: Snapshot, budget: int, size: Size) -> Snapshot:
    """Identifiers only mentioned in passing go, the latest first, by bisection on how many, until the
    rest fit or take at most `MENTIONS_SHARE` of the budget ("postgres:16.4, inv_app" is what a reply set
    up; what remains of them competes with every other item by salience)."""
    items = snapshot.key_knowledge
    mentions = [i for i, item in enumerate(items) if item.startswith(MENTIONED)]

    def without(count: int) -> Snapshot:
        gone = set(mentions[len(mentions) - count :]) if count else set()
        return replace(snapshot, key_knowledge=[x for i, x in enumerate(items) if i not in gone])

    def within_share(count: int) -> bool:
        kept = [items[i] for i in mentions[: len(mentions) - count]]
        return size(Snapshot(key_knowledge=kept)) <= MENTIONS_SHARE * budget

    return without(_fewest(len(mentions), lambda n: size(without(n)) <= budget or within_share(n)))


def _shortened(
    snapshot: Snapshot, budget: int, size: Size, limits: tuple[int, ...], only: frozenset[str] | None = None
) -> Snapshot:
    """Long items cut to their informative statements, oldest first, each limit in turn (`only`: just those
    items, by their text without references)."""
    current = snapshot
    for limit in limits:
        candidates = [
            (name, i)
            for name in STATEMENT_SECTIONS
            for i, item in enumerate(getattr(current, name))
            if len(body(item)) > limit and (only is None or body(item) in only)
        ]
        candidates.sort(key=lambda c: (min(numbers_in(getattr(current, c[0])[c[1]]), default=0), c))
        base = current

        def cut(
            count: int, base: Snapshot = base, candidates: list[tuple[str, int]] = candidates, limit: int = limit
        ) -> Snapshot:
            lists = {name: list(getattr(base, name)) for name in STATEMENT_SECTIONS}
            for name, i in candidates[:count]:
                lists[name][i] = rewrite(lists[name][i], partial(condensed, limit=limit))
            return with_sections(base, lists)

        current = cut(_fewest(len(candidates), partial(_fits, cut=cut, size=size, budget=budget)))
        if size(current) <= budget:
            return current
    return current


def _fits(count: int, cut: Callable[[int], Snapshot], size: Size, budget: int) -> bool:
    return size(cut(count)) <= budget


def _score(item: str) -> float:
    weight = salience(said(item))
    if CURRENT_MARK in item:  # a value just changed is what the next reply most needs
        weight *= CURRENT_WEIGHT
    if body(item).startswith(REPLACED_MARK):
        return weight * REPLACED_WEIGHT
    return weight * PARTLY_REPLACED_WEIGHT if REPLACED_MARK in item else weight


def _by_salience(
    snapshot: Snapshot, budget: int, size: Size, below: float | None = None, carried: frozenset[str] = frozenset()
) -> Snapshot:
    """Items dropped least informative first (oldest first among equals); dropped requests named by number.

    With `below`, only items scoring under it may go (what names nothing goes before anything is cut). An
    update in force goes last: without it the value it replaced, still listed as history, says nothing of
    what holds now."""
    ranked = sorted(
        (
            (
                CURRENT_MARK in item,
                _score(item) * (CARRIED_WEIGHT if body(item) in carried else 1),
                min(numbers_in(item), default=0),
                name,
                i,
            )
            for name in STATEMENT_SECTIONS
            for i, item in enumerate(getattr(snapshot, name))
            if not body(item).endswith(LEFT_OUT) and (below is None or _score(item) < below)
        ),
    )

    def without(count: int) -> Snapshot:
        gone = {(name, i) for *_, name, i in ranked[:count]}
        lists = {n: [x for i, x in enumerate(getattr(snapshot, n)) if (n, i) not in gone] for n in STATEMENT_SECTIONS}
        dropped = [n for name, i in gone if name == "user_requests" for n in numbers_in(snapshot.user_requests[i])]
        return with_sections(snapshot, lists | {"user_requests": left_out_merged(lists["user_requests"], dropped)})

    return without(_fewest(len(ranked), lambda n: size(without(n)) <= budget))


def left_out_merged(requests: list[str], dropped: list[int]) -> list[str]:
    """One line, first, naming every request left out (this fit's and earlier folds'), by message number."""
    earlier = [r for r in requests if body(r).endswith(LEFT_OUT)]
    shown = {n for r in earlier for n in numbers_in(r)}
    numbers = sorted({*dropped, *shown})
    rest = [r for r in requests if not body(r).endswith(LEFT_OUT)]
    if not numbers:
        return rest
    # an earlier line's reference shows some of its numbers ("#1, #3, …, #161"): its count says how many
    counted = sum(int(body(r).split(" ", 1)[0]) for r in earlier if body(r).split(" ", 1)[0].isdigit())
    count = max(len(numbers), counted + len(set(dropped) - shown))
    return [tag(f"{count} {'request' if count == 1 else 'requests'} {LEFT_OUT}", numbers), *rest]


def _to_values(snapshot: Snapshot, budget: int, size: Size, carried: frozenset[str] = frozenset()) -> Snapshot:
    """The least informative items cut to their values (names, numbers, dates, codes), references kept,
    as few as fit: under pressure a statement keeps its numbers before it is dropped."""
    ranked = sorted(
        (_score(item) * (CARRIED_WEIGHT if body(item) in carried else 1), min(numbers_in(item), default=0), name, i)
        for name in STATEMENT_SECTIONS
        for i, item in enumerate(getattr(snapshot, name))
        if not body(item).startswith(VALUES) and not body(item).endswith(LEFT_OUT) and values(said(item))
    )

    def cut(count: int) -> Snapshot:
        lists = {n: list(getattr(snapshot, n)) for n in STATEMENT_SECTIONS}
        for _, _, name, i in ranked[:count]:
            lists[name][i] = rewrite(lists[name][i], values_only)
        return stale_values_marked(with_sections(snapshot, listed_once(lists)))

    return cut(_fewest(len(ranked), lambda n: size(cut(n)) <= budget))


def _fewest(most: int, fits: Callable[[int], bool]) -> int:
    """The fewest cuts (0..most) for which `fits` holds, by bisection; `most` when none does."""
    if most == 0 or fits(0):
        return 0
    if not fits(most):
        return most
    low, high = 0, most  # the fewest that fit lie in (low, high]
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high


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
    update = {"user_requests": requests}
    for name in NEAR_DUPLICATE_SECTIONS:  # a rule said thrice is one rule
        update[name] = _near_duplicates_merged(getattr(snapshot, name))
    return with_sections(replace(snapshot, overall_goal=goal), update)


def _near_duplicates_merged(items: list[str]) -> list[str]:
    """Items that say the same thing with other punctuation or case are one item naming every message."""
    keys = [" ".join("".join(c for c in body(i).lower() if c.isalnum() or c.isspace()).split()) for i in items]
    first: dict[str, int] = {}
    for position, key in enumerate(keys):
        first.setdefault(key, position)
    if len(first) == len(items):
        return items
    merged: dict[int, list[int]] = {}
    for position, key in enumerate(keys):
        merged.setdefault(first[key], []).extend(numbers_in(items[position]))
    return [tag(body(items[p]), numbers) for p, numbers in sorted(merged.items())]
