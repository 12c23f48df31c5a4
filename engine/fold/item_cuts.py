"""How one snapshot item is made shorter when the snapshot must fit (`fold.fit` decides which and when).

An item keeps its message references (`references.rewrite`), its marks (`[replaced by #N]` on a statement,
`[current; replaces …]` at its end) and, cut to its values, the values of each statement.
"""

from __future__ import annotations

import re
from functools import partial

from ..facts import CURRENT_MARK, REPLACED_MARK
from ..references import body, numbers_in, rewrite
from ..salience import DENIED, KEY_MARK, clauses, condense, keyed, statements, values
from ..updates import has_update_cue

MENTIONED = "mentioned: "
VALUES = "values: "
UPDATE_CHARS = 160
KEPT_VALUES_SHARE = 0.75  # a cut keeping fewer of the item's values than this loses to the values alone
COMMON_VALUE_LISTS = 3  # a value in this many lists is what the chat is about ("Porto"), told once
_BARE_SMALL_NUMBER = re.compile(r"^\d{1,2}$")
# the marks `fold.supersede` writes, read back here and there: one spelling of each
REPLACED_STATEMENT = re.compile(rf"^{re.escape(REPLACED_MARK)} #(\d+)\] ")
"""A statement a later message replaced: `[replaced by #N] …` (group 1: N)."""
CURRENT_END = re.compile(rf" {re.escape(CURRENT_MARK)} ([^\]]*)\]$")
"""An update's mark at its item's end: ` [current; replaces #3, #7]` (group 1: what it names)."""


def said(item: str) -> str:
    """What the item says, without its reference and the prefix naming its kind."""
    text = body(item)
    for prefix in ("assistant: ", "assistant code: ", MENTIONED, VALUES):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def condensed(text: str, limit: int) -> str:
    """`condense`, an update's `[current; replaces …]` mark kept whole at its end; the item's values
    instead when they fit in `limit` and its statements cut that short would lose many of them
    ("values: Saturday September 20, Seville, 7pm, Hacienda Santa Clotilde" beats "Wedding is Saturday
    September 20 in Seville. … (Sept 11)")."""
    current = CURRENT_END.search(text)
    if current is not None:
        return condense(text[: current.start()], limit) + current.group(0)
    if text.startswith(VALUES):
        return _fewer_values(text, limit)
    cut = condense(text, limit)
    if cut == text:
        return cut
    listed = _fewer_values(values_only(text), limit)
    lost_many = len(values(cut)) < KEPT_VALUES_SHARE * len(listed.split(", "))
    return listed if len(listed) <= limit and lost_many else cut


def _fewer_values(text: str, limit: int) -> str:
    """A values list in about `limit` characters: whole entries ("Ceremony: 7pm", never "… 7pm"), those
    with a key or a mark first, then those with a digit, then names, put back in their order."""
    listed = text[len(VALUES) :].split(", ")
    ranked = sorted(
        range(len(listed)),
        key=lambda i: (KEY_MARK not in listed[i] and "[" not in listed[i], not any(c.isdigit() for c in listed[i]), i),
    )
    kept: set[int] = set()
    used = len(VALUES)
    for i in ranked:
        if used + len(listed[i]) + 2 <= limit or not kept:
            kept.add(i)
            used += len(listed[i]) + 2
    return VALUES + ", ".join(v for i, v in enumerate(listed) if i in kept)


def values_only(text: str) -> str:
    """An item cut to the values it names, in order: what is left of a statement before it is dropped.
    A value keeps the key right before it ("code: 7315", "Ceremony: 7pm"); a bare number under 100 goes.

    A value a later message replaced keeps its mark. An update keeps saying it is current, and keeps its
    statements that carry a value (the value it just changed is what the next reply most needs: "$300
    total, $150 each", not "$300, $150"); its mark's message numbers are not values."""
    if text.startswith(VALUES):
        return text
    current = CURRENT_END.search(text)
    what = said(text[: current.start()] if current else text)
    if current:
        return _update_kept(what, UPDATE_CHARS) + current.group(0)
    found: dict[str, None] = {}
    for statement in statements(what):
        mark = REPLACED_STATEMENT.match(statement)
        for value in values(statement[mark.end() :] if mark else statement):
            named = keyed(value, statement)  # "code: 7315", "Seat: 4": what the value is
            found.setdefault(f"{named} {mark.group(0).strip()}" if mark else named, None)
    # "2, 1, 20, 22" away from their words say nothing (unless nothing else is left)
    kept = [v for v in found if not _BARE_SMALL_NUMBER.match(DENIED.sub("", v))] or list(found)  # "not 15" too
    return f"{VALUES}{', '.join(kept)}" if kept else text


def _update_kept(text: str, limit: int) -> str:
    """An update cut to what it changed: its statements that say so and carry a value, each cut to its
    clauses with a value ("so let's bump the joint budget to $300 total, $150 each"); `condense` when none
    says so in so many words."""
    changes = [s for s in statements(text) if has_update_cue(s) and values(s)]
    if not changes:
        return condense(text, limit)
    share = max(40, limit // len(changes))
    return " … ".join(clauses(s, share) if len(s) > share else s for s in changes)


def listed_once(lists: dict[str, list[str]]) -> dict[str, list[str]]:
    """Lists of values without the values another list repeats: each stays in its oldest list ("Porto",
    "Casa Alecrim, €480" in every running tally cost room and tell once). A marked value stays where it is
    marked; a list left with nothing of its own goes (its values are all listed elsewhere)."""
    oldest: dict[str, int] = {}
    lists_naming: dict[str, int] = {}
    for items in lists.values():
        for item in items:
            if body(item).startswith(VALUES):
                at = max(numbers_in(item), default=0)
                for value in body(item)[len(VALUES) :].split(", "):
                    oldest[value] = min(oldest.get(value, at), at)
                    lists_naming[value] = lists_naming.get(value, 0) + 1

    def repeated(value: str, at: int) -> bool:
        return REPLACED_MARK not in value and lists_naming[value] >= COMMON_VALUE_LISTS and oldest[value] < at

    def own(text: str, at: int) -> str:
        kept = [v for v in text[len(VALUES) :].split(", ") if not repeated(v, at)]
        return f"{VALUES}{', '.join(kept)}" if kept else ""

    out: dict[str, list[str]] = {}
    for name, items in lists.items():
        out[name] = []
        for item in items:
            if body(item).startswith(VALUES):
                item = rewrite(item, partial(own, at=max(numbers_in(item), default=0)))
                if not body(item):
                    continue
            out[name].append(item)
    return out
