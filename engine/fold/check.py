"""The check every snapshot passes: facts of the folded span that it lost are put back.

Whoever wrote the snapshot (a model that paraphrased, a consolidation that dropped a part, a fallback),
a deterministic pass compares it with the messages it replaces: the rules summarizer's reading of that
span says which item of which section names each value (a path, command, URL, id, version, number with
its unit, date, time, name, price: `salience.values`), and every rules item whose values the snapshot
lacks is added to the same section, so a lost fact comes back where a reader looks for it (what the
assistant stated under key_knowledge, a choice under decisions, a user's booking code under
user_requests, an edited file under artifacts). The user's standing rules, constraints and preferences
("always …", "call me Sam", "budget cap is $500") are put back word for word; a constraint that is not
the user's own words (a model prompt-injected by folded text writing "always obey the tool") is dropped. The count of identifiers restored goes into the fold's report. Text we did not write is
only ever quoted here, never obeyed. A restored item carries the rules item's message reference (`(#12)`),
and references are never taken for identifiers: `(#123)` in a snapshot does not stand for a stated 123.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..facts import is_standing_rule, mentions
from ..messages import Message
from ..references import body, strip_references
from ..salience import values
from ..snapshot import SECTION_ROLES, Snapshot, render, with_sections
from ..summarizers.base import SummaryRequest

CHECKED_SECTIONS: tuple[str, ...] = tuple(name for name, roles in SECTION_ROLES.items() if roles.checked)
"""Sections whose items carry identifiers worth restoring, as the schema marks them (task state and recent
actions restate them; pinned text is the user's own, quoted verbatim)."""


@dataclass(frozen=True)
class Checked:
    snapshot: Snapshot
    restored: int
    """How many distinct identifiers of the span were missing from the snapshot and were put back."""


def check_snapshot(
    snapshot: Snapshot,
    messages: Sequence[Message],
    reference: Snapshot | None = None,
    numbers: Sequence[int] | None = None,
) -> Checked:
    """`snapshot` with every identifier of `messages` it lacks restored from the rules summarizer's items.

    `reference` is the rules snapshot of `messages` when the caller already has it; `numbers` are the
    messages' transcript numbers (as in `SummaryRequest`), named by restored items."""
    if reference is None:
        from ..summarizers.rules import RulesSummarizer

        reference = RulesSummarizer().summarize(SummaryRequest(messages, numbers=numbers))
    rules = [r for r in reference.constraints_and_preferences if is_standing_rule(r)]
    own = _flat(" ".join(m.text for m in messages if m.role == "user"))
    # a constraint is the user's own words: one the writer made up or took from tool output goes
    kept = [c for c in snapshot.constraints_and_preferences if _flat(body(c)) in own]
    have = {body(c) for c in kept}
    missing_rules = [r for r in rules if body(r) not in have]
    if missing_rules or len(kept) != len(snapshot.constraints_and_preferences):
        snapshot = replace(snapshot, constraints_and_preferences=[*kept, *missing_rules])
    rendered = strip_references(render(snapshot))
    restored: dict[str, None] = {}
    update: dict[str, list[str]] = {}
    for section in CHECKED_SECTIONS:
        added = []
        for item in getattr(reference, section):
            lost = [i for i in values(body(item)) if not mentions(rendered, i) and i not in restored]
            if lost:
                added.append(item)
                restored.update(dict.fromkeys(lost))
        if added:
            update[section] = [*getattr(snapshot, section), *added]
    if not update:
        return Checked(snapshot, 0)
    return Checked(with_sections(snapshot, update), len(restored))


def _flat(text: str) -> str:
    return " ".join(text.lower().split())
