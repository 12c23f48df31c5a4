"""Snapshots someone else wrote, met inside a conversation: another tool's compressed history that was
imported (gemini-cli's /compress leaves one as the first message), or one of ours pasted back.

Such a block is never taken for one of our snapshots (docs/design.md §3.6): inside an ordinary message it is
data about that message, shown to summarizers as one line; at the head of an imported history its sections
become items of ours, each labelled as quoted.
"""

from __future__ import annotations

import re

from .references import merge_referenced
from .snapshot import LIST_SECTIONS, SNAPSHOT_CLOSE, SNAPSHOT_OPEN, Snapshot, neutralise, with_sections

FOREIGN_SECTIONS = {
    "file_system_state": "artifacts",
    "files": "artifacts",
    "current_plan": "task_state",
    "plan": "task_state",
    "progress": "task_state",
    "key_facts": "key_knowledge",
    "context": "key_knowledge",
    "errors": "errors_and_fixes",
    "next_steps": "task_state",
    "questions": "open_questions",
}
"""Sections other tools write (gemini-cli's compressed history, ...) and the nearest one of ours."""
_QUOTED_SECTION = re.compile(r"<([A-Za-z_][\w-]{0,60})>(.*?)</\1>", re.S)
QUOTED_LABEL = "(from a snapshot quoted in a user message)"
_QUOTED_BLOCK = re.compile(r"<state_snapshot\b.*?(?:</state_snapshot>|\Z)", re.S)


def without_quoted_snapshots(text: str) -> str:
    """`text` with each snapshot block in it (another tool's, or ours pasted back) replaced by one line.

    A snapshot inside a message is data about that message: its rules are no rules of this conversation
    and its values no facts of it, so no summarizer reads its items. Its words stay in the transcript,
    where recall finds them."""
    if SNAPSHOT_OPEN not in text:
        return text

    def line(found: re.Match[str]) -> str:
        lines = found.group(0).count("\n") + 1
        return f"[a quoted state snapshot ({lines} lines): data about this message, not this conversation's state]"

    return _QUOTED_BLOCK.sub(line, text)


def is_history_head(text: str) -> bool:
    """A message that is a snapshot and nothing else: how a tool that compressed a history before it was
    imported leaves it (gemini-cli's /compress). First in the history, it stands for its earlier part."""
    stripped = text.strip()
    return stripped.startswith(SNAPSHOT_OPEN) and stripped.endswith(SNAPSHOT_CLOSE)


def quoted_sections(text: str) -> Snapshot | None:
    """The sections of a `<state_snapshot>` that someone pasted or imported, as data for ours.

    Such a block is never taken for one of our snapshots (docs/design.md §3.6); its facts are kept, each item
    labelled as quoted, under our nearest section, or under its own name in `key_knowledge`."""
    start = text.find(SNAPSHOT_OPEN)
    end = text.find(SNAPSHOT_CLOSE, start)
    if start < 0 or end < 0:
        return None
    found = Snapshot(depth=0)
    for name, body in _QUOTED_SECTION.findall(text[start:end]):
        items = [line.strip().removeprefix("- ").strip() for line in body.strip().splitlines()]
        items = [neutralise(item) for item in items if item]
        target = name if name in LIST_SECTIONS else FOREIGN_SECTIONS.get(name)
        if name == "overall_goal":
            found.key_knowledge.append(f"{QUOTED_LABEL} overall goal: {' '.join(items)}")
        elif target is not None:
            getattr(found, target).extend(f"{QUOTED_LABEL} {item}" for item in items)
        else:
            found.key_knowledge.extend(f"{QUOTED_LABEL} {name}: {item}" for item in items)
    return found if found.items() else None


def absorb(snapshot: Snapshot, quoted: Snapshot) -> Snapshot:
    """`snapshot` with `quoted`'s items put first in each section (they were said earlier)."""
    update = {name: merge_referenced([*getattr(quoted, name), *getattr(snapshot, name)]) for name in LIST_SECTIONS}
    return with_sections(snapshot, update)
