"""Message references: the suffix that says which transcript messages a snapshot item stands for.

An item written from message 12 ends with ` (#12)`; one merged from several messages names them all,
consecutive numbers as a range and a long list bounded (`(#3, #9–#11, #14, …, #80, #92)`). The numbers
are the conversation's transcript numbers (what `foldchat show`, the TUI, pruned stubs and `recall` use),
so they never change when a snapshot is folded again. This module is the one place that writes and reads
the format: the rules summarizer writes it, the LLM summarizer is asked for it, and the snapshot merge,
the fit to budget and the check read it, so all of them agree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

SHOWN_HEAD = 2  # groups shown before the "…" of a long reference
SHOWN_TAIL = 1  # and after it
MAX_RANGE = 100_000  # a range wider than this is not one we wrote: read its ends only

_NUMBER = r"#\d{1,9}"
_GROUP = rf"{_NUMBER}(?:\s?[–-]\s?#?\d{{1,9}})?"
_REFERENCE_BODY = rf"(?:{_GROUP}|…)(?:,\s?(?:{_GROUP}|…))*"
_TRAILING = re.compile(rf"\s*\(({_REFERENCE_BODY})\)\s*$")
_ANY = re.compile(rf" ?\(({_REFERENCE_BODY})\)(?=\s*$)", re.M)
_RANGE = re.compile(r"#(\d{1,9})(?:\s?[–-]\s?#?(\d{1,9}))?")


def reference(numbers: Iterable[int], elided: bool = False) -> str:
    """`(#12)`, `(#12–#15)`, `(#3, #9, #14)` or, past five groups, `(#1, #3, #5, …, #40, #52)`; "" for none.

    `elided`: some of the numbers are already unknown (read back from a reference with "…"), so the
    "…" stays even when what is left would fit."""
    groups = _groups(sorted(set(numbers)))
    if not groups:
        return ""
    if len(groups) > SHOWN_HEAD + SHOWN_TAIL:
        shown = [*groups[:SHOWN_HEAD], "…", *groups[-SHOWN_TAIL:]]
    elif elided and len(groups) > 1:
        cut = max(1, len(groups) - SHOWN_TAIL)
        shown = [*groups[:cut], "…", *groups[cut:]]
    else:
        shown = groups
    return f"({', '.join(shown)})"


def _groups(numbers: list[int]) -> list[str]:
    groups: list[str] = []
    start = previous = None
    for number in [*numbers, None]:
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None and previous is not None:
            groups.append(f"#{start}" if start == previous else f"#{start}–#{previous}")
        start = previous = number
    return groups


def tag(item: str, numbers: Iterable[int]) -> str:
    """A freshly written `item` with the reference to `numbers` appended (nothing if there are none)."""
    suffix = reference(numbers)
    return f"{item} {suffix}" if suffix else item


def with_reference(item: str, numbers: Iterable[int]) -> str:
    """`item` ending with the reference to `numbers` (merged with one it already ends with)."""
    body, known = split_reference(item)
    suffix = reference([*known, *numbers], elided=is_elided(item))
    return f"{body} {suffix}" if suffix else body


def is_elided(item: str) -> bool:
    """Whether the item's reference left numbers out ("…")."""
    found = _TRAILING.search(item)
    return found is not None and "…" in found.group(1)


@functools.lru_cache(maxsize=65_536)  # every fitting step reads every item's reference again
def split_reference(item: str) -> tuple[str, tuple[int, ...]]:
    """The item's text without its trailing reference, and the numbers the reference shows.

    Ranges are expanded; the numbers a "…" stands for are not known and not returned."""
    found = _TRAILING.search(item)
    if found is None:
        return item, ()
    return item[: found.start()], tuple(_expand(found.group(1)))


def rewrite(item: str, change: Callable[[str], str]) -> str:
    """`item` with `change` applied to its text and its reference kept as it was (shortening, terse forms)."""
    found = _TRAILING.search(item)
    if found is None:
        return change(item)
    return f"{change(item[: found.start()])} ({found.group(1)})"


def body(item: str) -> str:
    """The item without its reference: what two items are compared by."""
    return split_reference(item)[0]


def numbers_in(item: str) -> tuple[int, ...]:
    return split_reference(item)[1]


def _expand(text: str) -> list[int]:
    numbers: list[int] = []
    for match in _RANGE.finditer(text):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if first <= last <= first + MAX_RANGE:
            numbers.extend(range(first, last + 1))
        else:
            numbers.extend((first, last))
    return numbers


def strip_references(text: str) -> str:
    """Rendered snapshot text with every item's reference removed (line ends only), for identifier checks.

    A reference such as `(#123)` is not something the conversation said: a check that looks for the
    number 123 in a snapshot must not find it there."""
    return _ANY.sub("", text) if "(#" in text else text


def merge_referenced(items: Iterable[str]) -> list[str]:
    """Items with the same text said once, at the first place it was said, naming every message it came from."""
    order: dict[str, list[int]] = {}
    elided: set[str] = set()
    for item in items:
        text, numbers = split_reference(item)
        order.setdefault(text, []).extend(numbers)
        if is_elided(item):
            elided.add(text)
    return [_joined(text, numbers, text in elided) for text, numbers in order.items()]


def _joined(text: str, numbers: list[int], elided: bool) -> str:
    suffix = reference(numbers, elided)
    return f"{text} {suffix}" if suffix else text
