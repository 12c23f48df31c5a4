"""A snapshot edited by hand (the fold inspector's Edit; docs/design.md §7): only its sections are kept.

The edited text is what the model is sent, but the inspector shows it section by section and the next fold
reads it back with `snapshot.parse`, which reads only the sections: a line typed outside every section would
be sent once, shown nowhere and dropped by the next fold without a word. Such an edit is refused, and the
reason names the line, so the user can put it in a section (or take it out) and save again.
"""

from __future__ import annotations

from .errors import UsageError
from .snapshot import SNAPSHOT_CLOSE, SNAPSHOT_INTRO, SNAPSHOT_OPEN, sections_read


def stray_lines(text: str, before: str) -> list[tuple[int, str]]:
    """The lines of the edited `text` (1-based number, words) that no section holds. Outside the snapshot
    only the intro may stand: Foldchat's, or the one `before` (the text the edit started from) had."""
    start, end = text.find(SNAPSHOT_OPEN), text.rfind(SNAPSHOT_CLOSE)
    if start < 0 or end < start:
        return [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    head_end = text.find(">", start) + 1
    read = [False] * len(text)
    for section in sections_read(text[head_end:end]).values():
        read[head_end + section.start() : head_end + section.end()] = [True] * (section.end() - section.start())
    read[start:head_end] = [True] * (head_end - start)
    read[end : end + len(SNAPSHOT_CLOSE)] = [True] * len(SNAPSHOT_CLOSE)
    intro = {line.strip() for line in (SNAPSHOT_INTRO + "\n" + _outside(before)).splitlines() if line.strip()}
    stray, offset = [], 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        unread = "".join(c for i, c in enumerate(line, start=offset) if not read[i]).strip()
        outside = offset + len(line) <= start or offset >= end + len(SNAPSHOT_CLOSE)
        if unread and not (outside and line.strip() in intro):
            stray.append((number, unread))
        offset += len(line)
    return stray


def _outside(text: str) -> str:
    """What `text` holds before its snapshot (its intro) and after it."""
    start, end = text.find(SNAPSHOT_OPEN), text.rfind(SNAPSHOT_CLOSE)
    return text if start < 0 or end < start else text[:start] + "\n" + text[end + len(SNAPSHOT_CLOSE) :]


def edit_refusal(text: str, before: str) -> str | None:
    """Why the edited `text` cannot be saved, in one line; None when every line is in a section."""
    if SNAPSHOT_OPEN not in text or SNAPSHOT_CLOSE not in text:
        return f"not saved: the snapshot must stay between its {SNAPSHOT_OPEN} …> and {SNAPSHOT_CLOSE} lines"
    stray = stray_lines(text, before)
    if not stray:
        return None
    number, line = stray[0]
    more = f" (and {len(stray) - 1} more)" if len(stray) > 1 else ""
    words = line if len(line) <= 80 else line[:79] + "…"
    return (
        f"not saved: line {number}, {words!r}, is outside every section{more}; the inspector would not show it "
        "and the next fold would drop it: put it inside one (as '- …' under <key_knowledge>, say) or take it out"
    )


def checked_edit(text: str, before: str) -> str:
    """`text`, if every line of it is in a section; else UsageError with the reason (see `edit_refusal`)."""
    refusal = edit_refusal(text, before)
    if refusal is not None:
        raise UsageError(refusal)
    return text
