"""The artifact trail: every file a session touched and every command it ran, grouped and counted.

One line per file, path first and named once (`src/x.py: edited×3 (lines 120–134, …), read×2`), one per
command (`` ran `pytest -q` ×12 (5 failed) → last: exit 1, 3 passed, 1 failed ``), one per thing the user
shared in a chat (URLs, documents, pasted code). Commands that agree on their first `COMMAND_KEY_CHARS`
characters are one line: the same tool run on other arguments (`pytest -q tests/a.py`, `… tests/b.py`),
its variants listed in the line's details. A file only ever read by a command that names it (`cat f`)
gets no line of its own: the command's line names it.

Lines are written so that `trail_rank` can tell, from the text alone, which to drop first when the
snapshot is over budget: repeated reads and successful looks (`ls`, `cat`) go first; an edited, created
or deleted path never goes. `terse` drops a line's details (in parentheses) before any line is dropped.

Each line ends with the transcript numbers of the messages it was written from (`references`): the
messages whose tool calls touched the file or ran the command, or where the user shared the thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..facts import clip
from ..references import rewrite, split_reference, tag
from .shell_effects import FileEffect, is_read_only

COMMAND_CHARS = 90  # a single command, in full form
COMMAND_KEY_CHARS = 40  # commands alike this far are one command with other arguments
TERSE_COMMAND_CHARS = 52  # still more than the key, so a terse line still tells its command apart
VARIANT_CHARS = 160
LINE_SCAN_CHARS = 600  # trail lines written by a model can be long; ranks are read from their start

CHANGED = ("created", "edited", "deleted")
RANK_CHANGED = 0  # created / edited / deleted paths: never dropped
RANK_FAILED = 1  # commands whose last run failed, test runs, things the user shared
RANK_COMMAND = 2
RANK_LOOK = 3  # successful read-only commands and searches
RANK_READ = 4  # files only read
_RAN = re.compile(r"ran `([^`\n]*)`(?: ×(\d+))?(?: \(([^\n]*?)\))? → (?:last: )?([^\n]*)$")
_FILE = re.compile(r"([^\s`]+): ((?:created|edited|deleted|read|ran)\b[^\n]*)$")
_DETAILS = re.compile(r" \([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)")  # one level of nested parentheses
_TESTS = re.compile(r"\d+ (?:passed|failed)|\d+ tests")


@dataclass
class _File:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    last_change: str = ""
    read_lines: str = ""
    only_via_commands: bool = True  # every effect so far came from a shell command that names the path


@dataclass
class _Command:
    variants: dict[str, None] = field(default_factory=dict)
    runs: int = 0
    failures: int = 0
    last_outcome: str = ""


class ArtifactTrail:
    """Collects file effects, commands and shared things in the order they happened."""

    def __init__(self) -> None:
        self.files: dict[str, _File] = {}
        self.commands: dict[str, _Command] = {}
        self.shared: dict[str, None] = {}
        self.searches: dict[str, tuple[int, str]] = {}  # query → (runs, last outcome)
        self._order: dict[tuple[str, str], dict[int, None]] = {}  # each entry's messages, in order

    def _seen(self, kind: str, key: str, number: int | None) -> None:
        numbers = self._order.setdefault((kind, key), {})
        if number is not None:
            numbers[number] = None

    def file(self, effect: FileEffect, via_command: bool = False, number: int | None = None) -> None:
        record = self.files.setdefault(effect.path, _File(effect.path))
        op = effect.op
        if op == "created" and record.counts.get("created"):
            op = "edited"  # written again: a rewrite
        record.counts[op] = record.counts.get(op, 0) + 1
        if op in CHANGED:
            record.last_change = effect.detail
        if op == "read" and effect.detail:
            record.read_lines = effect.detail
        record.only_via_commands = record.only_via_commands and via_command and op == "read"
        self._seen("file", effect.path, number)

    def command(self, text: str, outcome: str, failed: bool = False, number: int | None = None) -> None:
        full = " ".join(text.split())
        key = full[:COMMAND_KEY_CHARS]
        record = self.commands.setdefault(key, _Command())
        record.variants.pop(full, None)  # the newest variant last
        record.variants[full] = None
        record.runs += 1
        record.failures += failed
        record.last_outcome = outcome
        self._seen("command", key, number)

    def search(self, query: str, outcome: str, number: int | None = None) -> None:
        """A search (`'TODO' in src/`), counted: the same query run again is one line with its last result."""
        runs, _ = self.searches.get(query, (0, ""))
        self.searches[query] = (runs + 1, outcome)
        self._seen("search", query, number)

    def share(self, line: str, number: int | None = None) -> None:
        self.shared.setdefault(line, None)
        self._seen("shared", line, number)

    def lines(self) -> list[str]:
        """The trail, one line per file / command / shared thing, in order of first appearance."""
        named = " ".join(_command_head(record)[:TERSE_COMMAND_CHARS] for record in self.commands.values())
        out = []
        for (kind, key), numbers in self._order.items():
            if kind == "file":
                record = self.files[key]
                if record.only_via_commands and key in named:
                    continue  # `cat f`'s own line names f, even in its terse form
                line = _file_line(record)
            elif kind == "command":
                line = _command_line(self.commands[key])
            elif kind == "search":
                runs, outcome = self.searches[key]
                line = f"searched {key}{f' ×{runs}' if runs > 1 else ''} → {'last: ' if runs > 1 else ''}{outcome}"
            else:
                line = key
            out.append(tag(line, numbers))
        return out

    def paths(self) -> list[str]:
        return list(self.files)


def _times(count: int) -> str:
    return f"×{count}" if count > 1 else ""


def _file_line(record: _File) -> str:
    counts = record.counts
    parts = []
    for op in (*CHANGED, "read", "ran"):
        if not counts.get(op):
            continue
        detail = record.last_change if op in CHANGED and op == _last_changed_op(counts) else ""
        if op == "read":
            detail = record.read_lines
        parts.append(f"{op}{_times(counts[op])}" + (f" ({clip(detail, 140)})" if detail else ""))
    return f"{record.path}: {', '.join(parts)}"


def _last_changed_op(counts: dict[str, int]) -> str:
    """The change verb that carries the last change's detail (the last of created/edited/deleted seen)."""
    return [op for op in CHANGED if counts.get(op)][-1]


def _command_head(record: _Command) -> str:
    variants = list(record.variants)
    if len(variants) == 1:
        return variants[0]
    return _shared_start(variants) + "…"


def _shared_start(texts: list[str]) -> str:
    """The characters every text starts with (a command prefix, not a path: cut mid-word if need be)."""
    shortest, longest = min(texts), max(texts)  # the lexicographic extremes bound every other text
    length = next((i for i, (a, b) in enumerate(zip(shortest, longest, strict=False)) if a != b), len(shortest))
    return shortest[:length]


def _command_line(record: _Command) -> str:
    variants = list(record.variants)
    head = _command_head(record)
    details = []
    if 0 < record.failures < record.runs:
        details.append(f"{record.failures} failed")
    if len(variants) > 1:
        cut = len(head) - 1
        shown = ", ".join(clip(v[cut:], 60) or "(bare)" for v in reversed(variants))
        details.append(f"{len(variants)} variants, newest first: {clip(shown, VARIANT_CHARS)}")
    counted = f" ×{record.runs}" if record.runs > 1 else ""
    detail = f" ({'; '.join(details)})" if details else ""
    last = "last: " if record.runs > 1 else ""
    return f"ran `{clip(head, COMMAND_CHARS)}`{counted}{detail} → {last}{clip(record.last_outcome, 160)}"


def terse(line: str) -> str:
    """The same trail line with its details dropped: what a tight budget keeps before dropping lines.

    Its message reference is not a detail: it stays."""
    return rewrite(line, _terse)


def _terse(line: str) -> str:
    head = line[:LINE_SCAN_CHARS]
    ran = _RAN.match(head)
    if ran is not None:
        command, count, _details, outcome = ran.groups()
        verdict = outcome.split(":", 1)[0].split(",")
        tests = [part.strip() for part in verdict[1:] if "failed" in part or "passed" in part][:1]
        status = verdict[0].strip()
        short = ", ".join(["ok" if status == "exit 0" else status, *tests])
        counted = f" ×{count}" if count else ""
        return f"ran `{clip(command, TERSE_COMMAND_CHARS)}`{counted} → {short}"
    if _FILE.match(head) is not None or trail_rank(line) == RANK_CHANGED:  # also the older `edited x (last: …)`
        return _DETAILS.sub("", line)  # never clipped: the path must stay whole
    if head.startswith("searched "):
        return clip(_DETAILS.sub("", head), 120)
    return clip(line, 100)


def trail_rank(line: str) -> int:
    """How precious a trail line is (0 = never drop); works on lines written by people or models too."""
    head = split_reference(line[:LINE_SCAN_CHARS])[0]
    entry = _FILE.match(head)
    if entry is not None:
        verbs = set(re.findall(r"[a-z]+", _DETAILS.sub("", entry.group(2))))
        if verbs & set(CHANGED):
            return RANK_CHANGED
        return RANK_READ if "read" in verbs else RANK_COMMAND
    first = head.split(" ", 1)[0].rstrip(",")
    if first in CHANGED:
        return RANK_CHANGED
    if first in ("shared", "pasted", "user"):
        return RANK_FAILED
    if first == "read":
        return RANK_READ
    if first == "searched":
        return RANK_LOOK
    ran = _RAN.match(head)
    if ran is None:
        return RANK_COMMAND
    command, outcome = ran.group(1), ran.group(4)
    if not outcome.startswith(("exit 0", "ok")) or _TESTS.search(outcome):
        return RANK_FAILED
    return RANK_LOOK if is_read_only(command) else RANK_COMMAND
