"""Updates replace (DESIGN §7): a later message that changes a value makes the earlier one history.

When a statement in a snapshot changes what an earlier item stated ("actually, raise the budget cap to
$650" after "Budget cap is $500 total"), the earlier item is marked `[replaced by #N]` (it stays, with
its message reference, so `recall` can bring back what was said, but it is no longer presented as
current and loses the protection of a standing rule) and the newer one says what it replaced. Applied
within one fold and across folds (an item carried from an earlier snapshot is compared like any other),
so a snapshot never presents both values as current.
"""

from __future__ import annotations

from functools import partial

from .facts import REPLACED_MARK
from .references import body, numbers_in, rewrite
from .salience import replaces, statements
from .snapshot import Snapshot

SECTIONS = ("constraints_and_preferences", "key_knowledge", "decisions", "user_requests")
MAX_ITEMS = 2000  # beyond this a snapshot is an agent log, not a chat: comparing every pair costs too much


def supersede(snapshot: Snapshot) -> Snapshot:
    """`snapshot` with every item a later item replaced marked as such (see the module docstring)."""
    items = [(name, i, item) for name in SECTIONS for i, item in enumerate(getattr(snapshot, name))]
    if len(items) > MAX_ITEMS:
        return snapshot
    updates = [(name, i, item) for name, i, item in items if _is_update_candidate(item)]
    if not updates:
        return snapshot
    lists = {name: list(getattr(snapshot, name)) for name in SECTIONS}
    for name, i, newer in updates:
        at = max(numbers_in(newer), default=0)
        said = [s for s in statements(body(newer)) if not s.endswith("?")]
        replaced: list[tuple[str, int]] = []
        for other_name, j, older in items:
            current = lists[other_name][j]
            if current.startswith(REPLACED_MARK) or (other_name, j) == (name, i):
                continue
            older_at = max(numbers_in(older), default=0)
            if not at or not older_at or older_at >= at:
                continue
            if any(replaces(new, old) for new in said for old in statements(body(older))):
                lists[other_name][j] = f"{REPLACED_MARK} #{at}] {current}"
                replaced.append((other_name, older_at))
        if replaced:
            shown = ", ".join(sorted({f"#{n}" for _, n in replaced}))
            lists[name][i] = rewrite(lists[name][i], partial(_marked_current, shown=shown))
    return snapshot.model_copy(update=lists)


def _marked_current(text: str, shown: str) -> str:
    return f"{text} [current; replaces {shown}]"


def _is_update_candidate(item: str) -> bool:
    text = body(item)
    return not text.startswith(REPLACED_MARK) and "[current; replaces" not in text
