"""How one snapshot item is made shorter when the snapshot must fit (`fold.fit` decides which and when).

An item keeps its message references (`references.rewrite`), its marks (`[replaced by #N]` on a statement,
`[current; replaces …]` at its end) and, cut to its values, the values of each statement.
"""

from __future__ import annotations

import re

from ..facts import CURRENT_MARK, REPLACED_MARK
from ..references import body
from ..salience import clauses, condense, statements, values
from ..updates import has_update_cue

MENTIONED = "mentioned: "
VALUES = "values: "
UPDATE_CHARS = 160
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
    """`condense`, an update's `[current; replaces …]` mark kept whole at its end."""
    current = CURRENT_END.search(text)
    if current is None:
        return condense(text, limit)
    return condense(text[: current.start()], limit) + current.group(0)


def values_only(text: str) -> str:
    """An item cut to the values it names, in order: what is left of a statement before it is dropped.

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
            found.setdefault(f"{value} {mark.group(0).strip()}" if mark else value, None)
    return f"{VALUES}{', '.join(found)}" if found else text


def _update_kept(text: str, limit: int) -> str:
    """An update cut to what it changed: its statements that say so and carry a value, each cut to its
    clauses with a value ("so let's bump the joint budget to $300 total, $150 each"); `condense` when none
    says so in so many words."""
    changes = [s for s in statements(text) if has_update_cue(s) and values(s)]
    if not changes:
        return condense(text, limit)
    share = max(40, limit // len(changes))
    return " … ".join(clauses(s, share) if len(s) > share else s for s in changes)
