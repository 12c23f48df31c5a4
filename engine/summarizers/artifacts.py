"""The artifact trail: every file a session touched and every command it ran, grouped and counted.

One line per file (`edited src/x.py ×3, last: lines 120–134 …; read ×2`), one per distinct command
(`` ran `pytest -q` ×12 → last: exit 1, 3 passed, 1 failed ``), one per thing the user shared in a chat
(URLs, documents, pasted code). Lines are written so that `trail_rank` can tell, from the text alone,
which to drop first when the snapshot is over budget: repeated reads and successful looks (`ls`, `cat`)
go first; an edited, created or deleted path never goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..facts import clip
from .shell_effects import FileEffect, is_read_only

COMMAND_CHARS = 90  # enough to tell commands apart by their first 40+ characters

CHANGED = ("created", "edited", "deleted")
RANK_CHANGED = 0  # created / edited / deleted paths: never dropped
RANK_FAILED = 1  # commands whose last run failed, test runs, things the user shared
RANK_COMMAND = 2
RANK_LOOK = 3  # successful read-only commands and searches
RANK_READ = 4  # files only read
_RAN = re.compile(r"ran `(.*?)`(?: ×(\d+))? → (?:last: )?(.*)$", re.S)
_TESTS = re.compile(r"\d+ (?:passed|failed)|\d+ tests")


@dataclass
class _File:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    last_change: str = ""
    read_lines: str = ""


@dataclass
class _Command:
    text: str
    runs: int = 0
    last_outcome: str = ""


class ArtifactTrail:
    """Collects file effects, commands and shared things in the order they happened."""

    def __init__(self) -> None:
        self.files: dict[str, _File] = {}
        self.commands: dict[str, _Command] = {}
        self.shared: dict[str, None] = {}
        self._order: dict[tuple[str, str], None] = {}

    def file(self, effect: FileEffect) -> None:
        record = self.files.setdefault(effect.path, _File(effect.path))
        op = effect.op
        if op == "created" and record.counts.get("created"):
            op = "edited"  # written again: a rewrite
        record.counts[op] = record.counts.get(op, 0) + 1
        if op in CHANGED:
            record.last_change = effect.detail
        if op == "read" and effect.detail:
            record.read_lines = effect.detail
        self._order.setdefault(("file", effect.path), None)

    def command(self, text: str, outcome: str) -> None:
        key = " ".join(text.split())
        record = self.commands.setdefault(key, _Command(key))
        record.runs += 1
        record.last_outcome = outcome
        self._order.setdefault(("command", key), None)

    def share(self, line: str) -> None:
        self.shared.setdefault(line, None)
        self._order.setdefault(("shared", line), None)

    def lines(self) -> list[str]:
        """The trail, one line per file / command / shared thing, in order of first appearance."""
        out = []
        for kind, key in self._order:
            if kind == "file":
                out.append(_file_line(self.files[key]))
            elif kind == "command":
                out.append(_command_line(self.commands[key]))
            else:
                out.append(key)
        return out

    def paths(self) -> list[str]:
        return list(self.files)


def _times(count: int) -> str:
    return f" ×{count}" if count > 1 else ""


def _file_line(record: _File) -> str:
    counts = record.counts
    changed = [op for op in CHANGED if counts.get(op)]
    reads = counts.get("read", 0)
    if not changed:
        lines = f" ({record.read_lines})" if record.read_lines else ""
        ran = f"; ran{_times(counts['ran'])}" if counts.get("ran") else ""
        what = "read" if reads else "ran"
        return f"{what} {record.path}{_times(reads or counts.get('ran', 0))}{lines}{ran if reads else ''}"
    head = ", ".join(f"{op}{_times(counts[op])}" for op in changed)
    line = f"{head} {record.path}"
    if record.last_change:
        line += f" (last: {clip(record.last_change, 140)})"
    if reads:
        line += f"; read{_times(reads)}"
    return line


def _command_line(record: _Command) -> str:
    last = "last: " if record.runs > 1 else ""
    return f"ran `{clip(record.text, COMMAND_CHARS)}`{_times(record.runs)} → {last}{clip(record.last_outcome, 160)}"


_LAST_CHANGE = re.compile(r" \(last: [^\n]*?\)(?=;|$)")
TERSE_COMMAND_CHARS = 52


def terse(line: str) -> str:
    """The same trail line with its details dropped: what a tight budget keeps before dropping lines."""
    ran = _RAN.match(line)
    if ran is not None:
        command, count, outcome = ran.groups()
        verdict = outcome.split(":", 1)[0].split(",")
        tests = [part.strip() for part in verdict[1:] if "failed" in part or "passed" in part][:1]
        short = ", ".join([verdict[0].strip(), *tests])
        return f"ran `{clip(command, TERSE_COMMAND_CHARS)}`{_times(int(count or 1))} → {short}"
    if trail_rank(line) == RANK_CHANGED:
        return _LAST_CHANGE.sub("", line)
    return clip(line, 100)


def trail_rank(line: str) -> int:
    """How precious a trail line is (0 = never drop); works on lines written by people or models too."""
    first = line.split(" ", 1)[0].rstrip(",")
    if first in CHANGED:
        return RANK_CHANGED
    if first in ("shared", "pasted", "user"):
        return RANK_FAILED
    if first == "read":
        return RANK_READ
    if first == "searched":
        return RANK_LOOK
    ran = _RAN.match(line)
    if ran is None:
        return RANK_COMMAND
    command, outcome = ran.group(1), ran.group(3)
    if not outcome.startswith(("exit 0", "ok")) or _TESTS.search(outcome):
        return RANK_FAILED
    return RANK_LOOK if is_read_only(command) else RANK_COMMAND
