"""Updates replace (DESIGN §7): a later message that changes a value makes the earlier one history.

When a statement in a snapshot changes what an earlier item stated ("actually, raise the budget cap to
$650" after "Budget cap is $500 total"), the earlier item is marked `[replaced by #N]` (it stays, with
its message reference, so `recall` can bring back what was said, but it is no longer presented as
current and loses the protection of a standing rule) and the newer one says what it replaced. Applied
within one fold and across folds (an item carried from an earlier snapshot is compared like any other),
so a snapshot never presents both values as current.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from .facts import REPLACED_MARK
from .references import body, numbers_in, rewrite
from .salience import has_update_cue, replaces, statements, topic, values
from .snapshot import Snapshot

SECTIONS = ("constraints_and_preferences", "key_knowledge", "decisions", "user_requests")
MAX_UPDATES = 120
MAX_ITEMS = 2000  # beyond this a snapshot is an agent log, not a chat: comparing every pair costs too much


NEWER_SECTIONS = ("user_requests", "constraints_and_preferences", "decisions")
"""Where updates come from: what the user (or the other speaker) said and decided; an assistant's long
explanation says "instead" and "now" too often to be read as changing a value."""


def supersede(snapshot: Snapshot) -> Snapshot:
    """`snapshot` with every statement a later item replaced marked as such (see the module docstring)."""
    items = [(name, i, item) for name in SECTIONS for i, item in enumerate(getattr(snapshot, name))]
    if len(items) > MAX_ITEMS:
        return snapshot
    updates = [(name, i, item) for name, i, item in items if name in NEWER_SECTIONS and _is_update_candidate(item)]
    # each is compared with every item: the newest updates, which earlier folds have not seen, are enough
    updates = sorted(updates, key=lambda update: max(numbers_in(update[2]), default=0))[-MAX_UPDATES:]
    if not updates:
        return snapshot
    lists = {name: list(getattr(snapshot, name)) for name in SECTIONS}
    for name, i, newer in updates:
        at = max(numbers_in(newer), default=0)
        # the message says it changes something; its statements that carry a value are what changed
        text = _CURRENT.sub("", body(newer))
        said = [s for s in statements(text) if not s.endswith("?")] if has_update_cue(text) else []
        replaced: set[int] = set()
        # a replaced statement shares a content word with what replaces it (`replaces`): the others are
        # skipped before any pair is compared (a 1 MB chat made 1.2 million comparisons)
        said_topic = frozenset().union(*(topic(s) for s in said))
        for other_name, j, older in items:
            older_at = max(numbers_in(older), default=0)
            if not said or (other_name, j) == (name, i) or not at or not older_at or older_at >= at:
                continue
            if not topic(body(older)) & said_topic:
                continue
            marked = _mark_replaced(lists[other_name][j], said, at)
            if marked != lists[other_name][j]:
                lists[other_name][j] = marked
                replaced.add(older_at)
        if replaced:  # a bare echo of a replaced value ("Noted: 4411-OWL.") goes with it
            stale = _stale_values(lists, at)
            for other_name, j, older in items:
                older_at = max(numbers_in(older), default=0)
                if older_at and older_at < at and (other_name, j) != (name, i):
                    lists[other_name][j] = _mark_echo(lists[other_name][j], stale, at)
        if replaced:
            shown = ", ".join(f"#{n}" for n in sorted(replaced))
            lists[name][i] = rewrite(lists[name][i], partial(_marked_current, shown=shown))
    return snapshot.model_copy(update=lists)


_SPEAKER = re.compile(r"^(assistant(?: code)?: )")


def _mark_statements(item: str, stale: Callable[[str], bool], at: int) -> str:
    """`item` with each of its statements for which `stale` holds marked `[replaced by #at]`; the item
    itself when none is (a speaker prefix and the message reference stay where they are)."""

    def mark(text: str) -> str:
        speaker = _SPEAKER.match(text)
        prefix = speaker.group(1) if speaker else ""
        out = []
        for statement in statements(text[len(prefix) :]):
            replaced = not statement.startswith(REPLACED_MARK) and stale(statement)
            out.append(f"{REPLACED_MARK} #{at}] {statement}" if replaced else statement)
        return prefix + " ".join(out)

    marked = rewrite(item, mark)
    return marked if marked.count(REPLACED_MARK) > item.count(REPLACED_MARK) else item


def _mark_replaced(item: str, said: list[str], at: int) -> str:
    """`item` with each of its statements that one of `said` replaces marked."""
    return _mark_statements(item, lambda old: any(replaces(new, old, cue=True) for new in said), at)


def _stale_values(lists: dict[str, list[str]], at: int) -> set[str]:
    """Values of the statements just marked replaced by message `at` (read from the current lists)."""
    mark = f"{REPLACED_MARK} #{at}] "
    found: set[str] = set()
    for items in lists.values():
        for item in items:
            for statement in statements(body(item)):
                if mark in statement:
                    found.update(values(statement.split(mark, 1)[1]))
    return found


def _mark_echo(item: str, stale: set[str], at: int) -> str:
    """`item` with each bare echo of a replaced value ("Noted: 4411-OWL.") marked with it."""

    def echo(statement: str) -> bool:
        said = set(values(statement))
        return bool(said) and said <= stale and not topic(statement)

    return _mark_statements(item, echo, at) if stale else item


_CURRENT = re.compile(r" \[current; replaces ([^\]]*)\]$")


def _marked_current(text: str, shown: str) -> str:
    """`text` ending with one `[current; replaces …]` mark naming what it replaced, this time and before."""
    found = _CURRENT.search(text)
    if found is None:
        return f"{text} [current; replaces {shown}]"
    numbers = {int(n) for n in re.findall(r"\d+", f"{found.group(1)} {shown}")}
    return f"{text[: found.start()]} [current; replaces {', '.join(f'#{n}' for n in sorted(numbers))}]"


def _is_update_candidate(item: str) -> bool:
    return not body(item).startswith((REPLACED_MARK, "assistant"))
