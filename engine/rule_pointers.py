"""What a standing rule's "that" stands for (docs/design.md §7, standing rules; issue 44 item 10).

"Please don't suggest anything that pushes us over that." is a rule only with the value its "that" points
at, said in a sentence or a message before it. Carried alone through folds it would point at nothing, or
at a cap that has since changed. So a rule with such a pointer and no value of its own gets a note after
the user's words, never inside them:

- `[“that” = $30 a month]`: the value it points at, when the nearest sentence before it that states a value
  states exactly one (`pointed`);
- `[check: what “that” is: 9:40 or 35 km?]` (`NEEDS_A_LOOK`): when that sentence states several, or none
  was found; the reader (a person, or the model) looks at the messages the item names;
- `[“that” = $45 a month, changed in #12]` or `[check: “that” was $30 a month, changed in #12]`: the value
  it pointed at was changed later (`fold/supersede.py` rewrites the note with `note`): the rule still
  stands, with the value in force when the update names one, else marked for a look.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .salience import values

NEEDS_A_LOOK = "[check:"
"""Opens the note of a rule whose pointer could not be resolved: a reader should look at what it meant."""

_VALUE_NOUNS = r"amount|limit|cap|budget|number|price|total|sum|figure|threshold|ceiling|floor|max(?:imum)?|minimum"
# what may follow a pointer that is no determiner: the sentence's end, a clause, the value's own noun
_AFTER = (
    r"(?=\s*(?:$|[.,;:!?…)—-]|(?:without|unless|if|except|and|or|please|ever|again|anymore|either|too|at all|for|"
    rf"{_VALUE_NOUNS})\b))"
)
_POINTER = re.compile(
    # "over that", "above it", "more than that limit" (not "over that bridge", "I'm over it")
    r"(?<!i'm )(?<!i am )(?<!get )(?<!got )\b(?:over|under|above|below|beyond|past|exceed(?:s|ing)?|"
    rf"(?:more|less|higher|lower) than|within|up to) (?:that|it|this)\b{_AFTER}"
    # "treat it as a hard limit", "that's our cap", "the same amount"
    rf"|\b(?:treat|take|consider|keep|use) (?:that|it|this) as (?:a|an|the|my|our|your) (?:\w+ )?(?:{_VALUE_NOUNS})\b"
    rf"|\b(?:that|this)(?:'s| is) (?:a|an|the|my|our) (?:\w+ )?(?:{_VALUE_NOUNS})\b"
    rf"|\b(?:that|this|the same) (?:{_VALUE_NOUNS})\b",
    re.I,
)
_WORD = re.compile(r"\b(?:the same|that|this|it)\b", re.I)
NOTE = re.compile(r" ?\[“(?P<word>[^”\]]{1,12})” = (?P<value>[^\]]{1,80}?)(?:, changed in #(?P<at>\d{1,9}))?\]")
_ANY_NOTE = re.compile(rf"{NOTE.pattern}| ?{re.escape(NEEDS_A_LOOK)}[^\]]{{0,200}}\]")
SHOWN_VALUES = 3  # an ambiguous note names this many candidates at most


def pointer_note(text: str) -> bool:
    """Whether `text` carries a note this module writes."""
    return "[“" in text or NEEDS_A_LOOK in text


def without_notes(text: str) -> str:
    """`text` without the notes this module writes (what the user said)."""
    return _ANY_NOTE.sub("", text) if "[" in text else text


def pointer_word(rule: str) -> str | None:
    """The word by which `rule` points at a value said before it ("that", "it"), when it states no value of its
    own and carries no note yet; None otherwise."""
    if pointer_note(rule) or any(c.isdigit() for c in rule):
        return None
    found = _POINTER.search(rule)
    if found is None:
        return None
    word = _WORD.search(found.group(0))
    return word.group(0).lower() if word else "that"


def note(word: str, value: str | None, at: int | None = None, was: str = "", candidates: Sequence[str] = ()) -> str:
    """The note after a rule pointing with `word`: the value it stands for (changed by message `at`), or the
    mark that it needs a look (naming what it was, or the candidates it may be)."""
    changed = f", changed in #{at}" if at is not None else ""
    if value is not None:
        return f"[“{word}” = {value}{changed}]"
    if was:
        return f"{NEEDS_A_LOOK} “{word}” was {was}{changed}]"
    if candidates:
        return f"{NEEDS_A_LOOK} what “{word}” is: {' or '.join(candidates[:SHOWN_VALUES])}?]"
    return f"{NEEDS_A_LOOK} what “{word}” is]"


def pointed(rule: str, before: Sequence[str]) -> str:
    """`rule` with the note on what its pointer stands for, read from `before` (the sentences said before it,
    oldest first): the one value of the nearest sentence that states any; `rule` unchanged without a pointer."""
    word = pointer_word(rule)
    if word is None:
        return rule
    for sentence in reversed(before):
        found = [v for v in values(without_notes(sentence)) if any(c.isdigit() for c in v)]
        if found:
            return f"{rule} {note(word, found[0] if len(found) == 1 else None, candidates=found)}"
    return f"{rule} {note(word, None)}"
