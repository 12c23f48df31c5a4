"""When a later statement changes what an earlier one stated (docs/design.md §7, "updates replace").

A statement is an update of another when it says so (a cue: "actually", "moved to", "raise the cap to"),
is about the same thing (a content word or a slot in common, `topic`), and names a new value of a kind the
older one had (a price for a price, a time for a time, `kind_of`); values are compared by their core
("$160 per week" is "$160").
"""

from __future__ import annotations

import functools
import re

from .facts import REPLACED_MARK, identifiers
from .salience import KEY_MARK, SCAN_CHARS, WORD, values

_UPDATE_CUE = re.compile(
    # "actually" opens a correction ("oh wait, actually it's 7"), not "until she actually swallows"; "410
    # updated" counts rows, it changes nothing
    r"(?:^|[.,;:!?—(]\s*|\b(?:oh|ok|okay|wait|no|um|hmm|so|but),? )actually\b|"
    r"\b(?:instead|chang(?:e[sd]?|ing)|(?<!\d )updat(?:ed|ing)|update (?:the|my|our|it|that|this|to)|moved?|moving|no longer|rais(?:e[sd]?|ing)|"
    r"increas(?:e[sd]?|ing)|bump(?:ed|ing)?|lower(?:ed|ing)?|reduc(?:e[sd]?|ing)|push(?:ed)? (?:back|to)|"
    r"postpone[sd]?|reschedul\w*|correction|scratch that|make it|switch(?:ed)? to|rather than|turns out|"
    r"replac(?:e[sd]?|ing)|renam\w*|from now on|going forward|anymore|"
    r"(?:is|are|was) now|new (?:code|number|date|time|address|name|cap|budget|limit|deadline|plan))\b",
    re.I | re.M,
)
_CODE = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[\w-]{4,}$")  # a reference both sides name: GP-7731, KX7R2P
_KINDS = (
    ("money", re.compile(r"[$€£]|\b(?:USD|EUR|GBP|dollars?|euros?|pounds?)\b", re.I)),
    ("time", re.compile(r"\d:\d\d|\b\d{1,2}\s?[ap]\.?m\b", re.I)),
    (
        "date",
        re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w*\b|\b\w+day\b|\d{4}-\d\d|\d/\d", re.I),
    ),
    ("number", re.compile(r"\d")),
    ("name", re.compile(r"\w")),
)


_PER = re.compile(r"(?:/[a-z]+| (?:a|per) [a-z]+)$")
_NO_CENTS = re.compile(r"(?<=\d)\.0+$")


_KEY_WORD = re.compile(rf"^[a-z]+{KEY_MARK}(?=\S)", re.I)  # "code: 7315" of a values list is 7315 (`keyed`)


def key_of(value: str) -> str:
    """The key a values list gives a value ("ceremony" of "Ceremony: 7pm"), lowercase; "" when none."""
    found = _KEY_WORD.match(value)
    return found.group(0)[: -len(KEY_MARK)].lower() if found else ""


def core(value: str) -> str:
    """A value as compared with another: "$160 per week" is "$160", "$70.00" is "$70", `stock_items` is
    stock_items, "1am" is 01:00 (an update names the old value in fewer words than it was stated in)."""
    bare = _KEY_WORD.sub("", value).strip("`")
    if bare[:1] in "$€£":
        bare = _NO_CENTS.sub("", _PER.sub("", bare))
    clock = _CLOCK.fullmatch(bare)
    if clock and (clock.group(2) or clock.group(3)):  # "22" alone is no time
        hour, minute, half = int(clock.group(1)), clock.group(2) or "00", (clock.group(3) or "").lower()
        hour = hour % 12 + (12 if half.startswith("p") else 0) if half else hour
        bare = f"{hour:02d}:{minute}"
    return bare


_CLOCK = re.compile(r"(\d{1,2})(?::(\d\d))?\s?(?:([ap])\.?m\.?)?", re.I)


@functools.lru_cache(maxsize=65_536)  # supersede's first pass asks it of every item for every update
def compared_values(text: str) -> frozenset[str]:
    """The values of `text` as compared with another statement's (`core`)."""
    return frozenset(core(v) for v in values(text))


@functools.lru_cache(maxsize=65_536)  # supersede asks it for every value of every pair of statements
def kind_of(value: str) -> str:
    """What a value is a value of: money, time, date, name, or a number of one shape: a phone number
    replaces a phone number ("(999) 999-9999"), not a ticket ("aa-99999999") said beside the old one."""
    kind = next((name for name, pattern in _KINDS if pattern.search(value)), "other")
    return f"number {_DIGIT.sub('9', _LETTER.sub('a', value))}" if kind == "number" else kind


_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


_STOP_WORDS = """
    the and for with that this from have has had are was were will would could should can you your our
    their they them his her its but not all any just also then than into onto about over under what
    when where which who how why there here been being did does doing done get got make made want need
    like please thanks okay yes actually now instead change changed update updated new raise bump moved
    move let lets i'm it's that's we're you're i've i'd don't can't won't total one ones thing things
    way lot bit really pretty still even back good great sure know think said says tell told going
    gonna noted understood perfect oh
    before after anything something everything nothing always never because either neither though although
    without within through another around already against between during except rather whatever whenever
    wherever yourself myself ourselves themselves itself someone anyone everyone people little almost enough
    probably definitely honestly basically literally better making getting having saying thinking wanted
    should would could maybe anymore
    monday tuesday wednesday thursday friday saturday sunday tonight tomorrow yesterday today
"""
_STOP = frozenset(_STOP_WORDS.split())


# "every time I switch", "one at a time": no time of anything, so no slot two statements share
_NO_TIME = re.compile(r"\b(?:every|each|any|some|this|next|last|first|one|a|no|the whole|all the|in) time\b", re.I)


@functools.lru_cache(maxsize=65_536)
def topic(text: str) -> frozenset[str]:
    """The content words of a statement without its values: what two statements about one thing share."""
    value_text = " ".join(values(text)).lower()
    out = set()
    for word in WORD.findall(_NO_TIME.sub(" ", text[:SCAN_CHARS].lower())):
        word = word.strip("'’-")
        if len(word) >= 3 and word not in _STOP and not word[0].isdigit() and word not in value_text:
            out.add(word.rstrip("s") if len(word) > 4 else word)
    return frozenset(out)


def has_update_cue(text: str) -> bool:
    """Whether `text` says it changes something; words in quotes are someone's words, not the change
    ("he says he's "not 22 anymore"" changes nothing)."""
    return _UPDATE_CUE.search(_QUOTED.sub(" ", text[:SCAN_CHARS])) is not None


_QUOTED = re.compile(r"\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”")


def replaces(newer: str, older: str, cue: bool = False) -> bool:
    """Whether statement `newer` changes a value that `older` stated (an update, not a second fact).

    It must say so ("actually", "moved to", "raise the cap to", ...; `cue`: the message it comes from said
    so in another sentence, "new phone number. … the callback number is …"), be about the same thing (a content
    word in common), and name a value the older one did not, of a kind the older one had (a price for a
    price, a time for a time; "from $500 to $650" names both)."""
    if older.startswith(REPLACED_MARK) or not (cue or has_update_cue(newer)):
        return False
    new_values, old_values = compared_values(newer), compared_values(older)
    changed = new_values - old_values
    if not changed or not old_values:
        return False
    # the new value is of a kind the old statement had (a price for a price, a time for a time) and the old
    # statement's value of that kind is not repeated: "raise the cap from $500 to $650" replaces "$500"
    old_kinds = {kind_of(v) for v in old_values}
    # a name for a name only when this statement itself says it changes something: "a change of plan" two
    # sentences earlier does not make every name the message mentions a replacement
    same_kind = any(kind_of(v) in old_kinds and kind_of(v) != "name" for v in changed)
    if not same_kind and not (_renamed(changed, old_values) and _NAME_CHANGE.search(newer[:SCAN_CHARS])):
        return False
    kinds = {kind_of(v) for v in changed} - {"name"}
    if any(kind_of(v) in kinds for v in new_values & old_values):  # "replacing the $70 one", "not 7315 anymore"
        return True
    if any(_CODE.search(v) for v in new_values & old_values):  # the same booking moved: "GP-7731 to 19:30"
        return True
    # a slot word naming another thing ("a budget airline", "the phone charger") is no slot both fill
    shared = {
        w for w in topic(newer) & topic(older) if w not in _SLOTS or not (_describes(w, older) or _describes(w, newer))
    }
    # the same slot of another thing is no update: a grocery budget and a vacation budget, a daily quota and
    # a per-minute quota (when each says whose slot it is, and they differ)
    shared -= {w for w in shared & _SLOTS if _qualifiers_differ(w, newer, older)}
    if not has_update_cue(newer):  # the cue is another sentence's: what both name must be a slot they fill
        return bool(shared & _SLOTS)  # ("be there at 9am with coffee" changes no "coffee maker ... 6pm")
    if _other_subjects(newer, older):
        return False
    # only when sure (docs/design.md §14): a slot both fill, or two things both name; one long word in common
    # ("monthly", "savings") marked a $550 grocery budget replaced by a $400 savings plan
    return len(shared) >= 2 or bool(shared & _SLOTS)


def _other_subjects(newer: str, older: str) -> bool:
    """Statements about two different things, whatever words they share: each names a slot and none is
    common (a grocery budget, a savings plan), or each names someone and nobody is common (Maisie's
    cetirizine, Elliot's melatonin)."""
    new_slots, old_slots = topic(newer) & _SLOTS, topic(older) & _SLOTS
    if new_slots and old_slots and not new_slots & old_slots:
        return True
    new_people, old_people = _people(newer), _people(older)
    if new_people and old_people and not new_people & old_people:
        return True
    # each names its own code and none is common: ticket T-149's rule and ticket T-150's are two rules
    new_codes, old_codes = _codes(newer), _codes(older)
    return bool(new_codes) and bool(old_codes) and not new_codes & old_codes


def _codes(text: str) -> frozenset[str]:
    """The identifiers with letters and digits (T-150, ALPHA005, BK-61044) a statement names."""
    return frozenset(v for v in identifiers(text[:SCAN_CHARS], limit=12) if _CODE.search(v))


_PERSON = re.compile(r"\b([A-Z][a-z]{2,})(?:'s|’s)?\b")
_NOT_PEOPLE = frozenset(
    ["update", "actually", "also", "and", "but", "our", "the", "this", "that", "these", "those", "then", "now", "new", "ok", "okay", "so", "yes", "no", "please", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "today", "tomorrow", "tonight"]
)


def _people(text: str) -> frozenset[str]:
    """Who a statement names: capitalized words that are neither common words nor days and months."""
    found = (w.lower() for w in _PERSON.findall(text[:SCAN_CHARS]))
    return frozenset(w for w in found if w not in _STOP and w not in _NOT_PEOPLE and w not in _SLOTS)


_QUALIFIER = r"([a-z][a-z-]{2,})(?:\s+|-)"


def _qualifiers_differ(slot: str, newer: str, older: str) -> bool:
    """Whether `newer` and `older` each name a word right before `slot` ("grocery budget", "per-minute
    quota") and no such word is common to both."""

    def qualifiers(text: str) -> set[str]:
        found = re.findall(rf"\b{_QUALIFIER}{slot}s?\b", text[:SCAN_CHARS], re.I)
        return {q.lower() for q in found if q.lower() not in _NOT_QUALIFIERS}

    new, old = qualifiers(newer), qualifiers(older)
    return bool(new) and bool(old) and not new & old


_NOT_QUALIFIERS = frozenset(
    ["the", "our", "my", "your", "his", "her", "their", "new", "old", "this", "that", "total", "whole", "same", "current", "monthly", "weekly", "the", "a", "an", "its", "raise", "lower", "set", "change", "update", "move", "increase", "reduce"]
)


_FOLLOWS_A_SLOT = "is|was|are|to|of|cap|limit|from|for|at|now|and|or|in|on|by|with|number|code|date|time"


def _describes(slot: str, text: str) -> bool:
    """Whether `slot` is only ever said before another noun in `text` ("budget airline"), never as the
    thing itself ("the budget is", "raise the budget to", "budget: $240")."""
    uses = re.findall(rf"\b{slot}s?\b(\s+[a-z]+)?", text[:SCAN_CHARS], re.I)
    return bool(uses) and all(after and not re.fullmatch(rf"\s+(?:{_FOLLOWS_A_SLOT})", after, re.I) for after in uses)


# what a value is a value of: one of these in common is enough to call two statements about one thing
_SLOTS_WORDS = """
    cap budget limit code number address name price cost fee rent salary port deadline phone
    email flight train hotel room table plan password pin
"""
_SLOTS = frozenset(_SLOTS_WORDS.split())


# a name replaces a name only when switched, renamed or chosen instead: "they're moving me to the hiring
# manager interview with Dev Malhotra" changes no name said before
_NAME_CHANGE = re.compile(r"\b(?:switch\w*|instead|renam\w*|replac\w*|chang\w*|rather than)\b", re.I)


def _renamed(changed: frozenset[str], old_values: frozenset[str]) -> bool:
    """A name changed for a name ("switch Seville to Patio de las Naranjas"): only names on both sides."""
    return all(kind_of(v) == "name" for v in changed) and any(kind_of(v) == "name" for v in old_values)


@functools.lru_cache(maxsize=4096)  # asked of every update statement for every values list it meets
def said_as_old(statement: str) -> frozenset[str]:
    """The values `statement` names as the old ones ("not 7315 anymore", "from $7,500 to", "replacing the
    $70 one"), by their core; the 6pm of "moved to 6pm" is the new one, though an unrelated list says 18:00."""
    old = set()
    for value in values(statement):
        said = re.escape(value)
        if re.search(rf"\b(?:{_OLD_BEFORE})\s+(?:the\s+)?{said}|{said}\s+(?:{_OLD_AFTER})", statement, re.I):
            old.add(core(value))
    return frozenset(old)


_OLD_BEFORE = "not|from|instead of|replacing|was|no longer|old|used to be|renam\\w*|chang\\w*|switch\\w*|mov\\w*"
_OLD_AFTER = "anymore|any more|no more"
