"""What came of a tool call, in a few words: exit code, test counts, the first error line, edited lines.

Reads only the ends of an output (where shells, pytest and editors put their verdict), so a huge output
costs no more than a small one. Every pattern is anchored or bounded: linear time on any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..facts import clip, exit_code, first_error_line

TAIL_CHARS = 3000
HEAD_CHARS = 4000

_TEST_COUNT = re.compile(r"\b(\d{1,6}) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
_UNITTEST_RAN = re.compile(r"^Ran (\d{1,6}) tests?\b", re.M)
_UNITTEST_FAILED = re.compile(r"^FAILED \(([\w=, ]{1,80})\)$", re.M)
_CAT_N_LINE = re.compile(r"^ {0,8}(\d{1,7})\t", re.M)
_FAILED_START = re.compile(r"\s{0,20}(?:error|failed|exception)", re.I)


@dataclass(frozen=True)
class Outcome:
    """The verdict of one call: a short summary, whether it failed, and the error line if any."""

    summary: str
    failed: bool
    error: str | None = None


def test_counts(output: str) -> str | None:
    """ "3 passed, 1 failed" from a pytest or unittest run, or None if the output holds no test verdict."""
    tail = output[-TAIL_CHARS:]
    counts: dict[str, str] = {}
    for number, kind in _TEST_COUNT.findall(tail):
        counts[kind] = number  # the last summary line wins
    if counts:
        return ", ".join(f"{n} {k}" for k, n in counts.items())
    ran = _UNITTEST_RAN.search(tail)
    if ran is None:
        return None
    failed = _UNITTEST_FAILED.search(tail)
    return f"{ran.group(1)} tests, failed ({failed.group(1)})" if failed else f"{ran.group(1)} tests OK"


def edited_lines(output: str) -> str | None:
    """ "lines 120–134" from the `cat -n` snippet editors show after an edit."""
    numbers = [int(n) for n in _CAT_N_LINE.findall(output[:HEAD_CHARS])]
    if not numbers:
        return None
    return f"lines {numbers[0]}–{numbers[-1]}" if numbers[-1] != numbers[0] else f"line {numbers[0]}"


def shell_outcome(output: str) -> Outcome:
    """A shell command's verdict: exit code (when stated), test counts, first error line."""
    code = exit_code(output)
    tests = test_counts(output)
    error = first_error_line(output[:HEAD_CHARS] + "\n" + output[-TAIL_CHARS:]) if output else None
    failed = code not in (None, 0) or (code is None and error is not None) or bool(tests and " failed" in tests)
    parts = [f"exit {code}" if code is not None else ("error" if failed else "ok")]
    if tests:
        parts.append(tests)
    if failed and error is None:
        lines = output.strip().splitlines()
        error = clip(lines[-1], 240) if lines else "no output"
    return Outcome(", ".join(parts), failed, error if failed else None)


def tool_failed(output: str) -> str | None:
    """The error line when a non-shell tool's output says it failed (starts with error/failed/exception)."""
    head = output[:HEAD_CHARS]
    if _FAILED_START.match(head):
        return first_error_line(head) or clip(head, 200)
    return None
