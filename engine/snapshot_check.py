"""The check every snapshot passes (issue 15): identifiers of the folded span that it lost are put back.

Whoever wrote the snapshot (a model that paraphrased, a consolidation that dropped a part, a fallback),
a deterministic pass compares it with the messages it replaces: the rules summarizer's reading of that
span says which item of which section names each path, command, URL, id, version or number, and every
rules item whose identifiers the snapshot lacks is added to the same section, so a lost identifier comes
back where a reader looks for it (a user's booking code under user_requests, an edited file under
artifacts). The user's standing rules ("always …", "call me Sam") are put back word for word, whatever
identifiers they hold. The count of identifiers restored goes into the fold's report. Text we did not write is
only ever quoted here, never obeyed. A restored item carries the rules item's message reference (`(#12)`),
and references are never taken for identifiers: `(#123)` in a snapshot does not stand for a stated 123.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .facts import identifiers, is_standing_rule
from .messages import Message
from .references import body, strip_references
from .snapshot import LIST_SECTIONS, Snapshot, render
from .summarizers.base import SummaryRequest

UNCHECKED_SECTIONS = frozenset({"task_state", "open_questions", "recent_actions", "pinned"})
CHECKED_SECTIONS: tuple[str, ...] = tuple(s for s in LIST_SECTIONS if s not in UNCHECKED_SECTIONS)
"""Sections whose items carry identifiers worth restoring (task state and recent actions restate them;
pinned text is the user's own, quoted verbatim)."""


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
        from .summarizers.rules import RulesSummarizer

        reference = RulesSummarizer().summarize(SummaryRequest(messages, numbers=numbers))
    rules = [r for r in reference.constraints_and_preferences if is_standing_rule(r)]
    have = {body(c) for c in snapshot.constraints_and_preferences}
    missing_rules = [r for r in rules if body(r) not in have]
    if missing_rules:
        constraints = [*snapshot.constraints_and_preferences, *missing_rules]
        snapshot = snapshot.model_copy(update={"constraints_and_preferences": constraints})
    rendered = strip_references(render(snapshot))
    restored: dict[str, None] = {}
    update: dict[str, list[str]] = {}
    for section in CHECKED_SECTIONS:
        added = []
        for item in getattr(reference, section):
            lost = [i for i in identifiers(body(item)) if i not in rendered and i not in restored]
            if lost:
                added.append(item)
                restored.update(dict.fromkeys(lost))
        if added:
            update[section] = [*getattr(snapshot, section), *added]
    if not update:
        return Checked(snapshot, 0)
    return Checked(snapshot.model_copy(update=update), len(restored))
