"""What a statement is worth keeping in a snapshot: information per token (docs/design.md §7, salience selection).

Everyday chats fold well only if the fold keeps what either side said that someone may rely on later
(a name, a number with its unit, a date, a price, a place, a first-person fact, a decision, a preference)
and lets go of what carries nothing (greetings, thanks, "sounds good"). Everything here is a pure
function of the text, so a snapshot item read back from an earlier fold scores exactly as it did when it
was written: what survived one fold competes on the same terms in the next.

Patterns are linear-time and read at most `SCAN_CHARS` of a statement.
"""

from __future__ import annotations

import functools
import re

from .facts import (
    IDENTIFIER,
    LABEL_PATTERN,
    NAME_LINKS,
    TITLES,
    WEEKDAY,
    is_shouted,
    mentions,
    without_blobs,
    without_opener,
)

SCAN_CHARS = 2000

# values a person may come back for: numbers with units, times, weekdays, quantities (besides `IDENTIFIER`)
_UNITS = (
    r"%|°[CF]?|x|k|m|cm|mm|km|kg|g|mg|lbs?|oz|ml|l|liters?|litres?|gallons?|cups?|tbsp|tsp|tablespoons?|"
    r"teaspoons?|pounds?|ounces?|grams?|kilos?|miles?|minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|"
    r"months?|years?|yrs?|seconds?|secs?|s|ms|people|persons?|guests?|adults?|kids?|pieces?|servings?|"
    r"slices?|eggs?|cloves?|cans?|bags?|tickets?|seats?|rooms?|beds?|floors?|stars?|points?|euros?|dollars?|"
    r"pounds?|usd|eur|gbp|mbps|gbps|gb|mb|kb|tb|ghz|mhz|w|kw|kwh|v|mah|dbm|db|am|pm|st|nd|rd|th|k\b"
)
_VALUE = re.compile(
    r"\b\d{1,2}(?::\d{2})\s?(?:(?i:[ap]\.?m)\b\.?|/(?:km|mi|mile)\b)?|\b\d{1,2}\s?[ap]\.?m\.?\b"  # 9:40, 8:00 AM, 7 pm, 6:00/km
    rf"|\b{WEEKDAY}\b"
    # a range or a fraction with its unit, whole: "3 to 4 days", "5–10%", "1 1/2 cups", "14-16 minutes"
    rf"|(?<![\w.\-/])\d+(?:[.,]\d+)?\s?(?:–|-|to)\s?\d+(?:[.,]\d+)?\s?(?i:{_UNITS})(?!\w)"
    rf"|(?<![\w.\-/])\d+ \d/\d+\s?(?i:{_UNITS})(?!\w)"
    rf"|(?<![\w.\-/])-?\d+(?:[.,]\d+)?\s?(?i:{_UNITS})(?!\w)"  # 3 tablespoons, 180°C, 25 minutes, 10%
    r"|(?<![\w.\-/])\d+-[a-z]{3,}\b"  # a size: a 6-quart slow cooker, a 15-foot truck
    r"|(?<![\w.\-/])\d+(?:[.,]\d+)*(?![\w.])"  # a bare number still says something
    # a capitalised word that does not start a sentence: a person, a place, a product (Theo, Lisbon)
    r"|(?<=[a-z,;:()] )(?!(?:I|I'm|I'd|I've|I'll|OK|Ok)\b)[A-Z][a-zà-ÿ]+"
    rf"(?:(?:[ -](?:(?:{NAME_LINKS}) )*)[A-Z][a-zà-ÿ]+)*(?: [A-HJ-Z]\b(?!['’]))?",  # Type F, Plan B
)
_FIRST_PERSON_FACT = re.compile(
    r"\b(?:I|we)(?:'m| am|'ve| have| had|'d| was| were| are| live| work| moved| got| just| started| left| "
    r"joined| bought| booked| need| use| own| run| teach| study| hate| love| like| can't| cannot| don't)\b"
    r"|\bmy (?:\w+ )?(?:wife|husband|partner|son|daughter|kids?|mom|mum|dad|mother|father|sister|brother|"
    r"friend|boss|dog|cat|doctor|team|company|manager|name|birthday|address|flight|budget|code|number|"
    r"account|order|car|job|salary|rent|landlord|apartment|flat|house|plan|deadline)\b",
    re.I,
)
_MY_VALUE = re.compile(
    r"\b(?:my|our) \w+(?: \w+)? (?:is|are|was|runs|has|have|takes|needs)\b|\b(?:keep|bear) (?:it|this|that) in mind\b",
    re.I,
)
# a value named by what it is: codes, numbers, ids people come back for ("code 7315", "order #A-1183")
KEYS = (
    r"code|number|no\.|password|pin|address|account|id|reference|confirmation|booking|order|ticket|serial|"
    r"model|flight|room|seat|gate|platform|locker|port|version|phone"
)
_KEYED_VALUE = re.compile(rf"\b(?:{KEYS})\b[^.\n]{{0,24}}?(?:\d{{2}}|\d(?![.)]\s))", re.I)
_KEY_BEFORE = re.compile(
    rf"\b({KEYS})\b(?: (?:is|was|are|=))?[: #]*$"
    # "Ceremony is at 7pm", "the shuttle leaves at 17:00": the thing the value is of, right before it
    r"|\b(?!(?:it|this|that|there|which|what|who|he|she|they|we|you|i|one|mine|ours)\b)([a-z]{3,})"
    r" (?:is|was|are|starts|begins|leaves|departs|opens|closes|ends)(?: (?:at|on|in|from|until|by))?$",
    re.I,
)
KEY_MARK = ": "  # "Ceremony: 7pm" in a values list: the key, then the value


_DENIAL = r"(?:not|never|no longer|instead of|rather than)(?: (?:on|at|in|the|by|from))?"
_DENIED_BEFORE = re.compile(rf"\b{_DENIAL}$", re.I)
"""Words that make the value after them the wrong one ("23 May, not 22 May", "instead of $40")."""
DENIED = re.compile(rf"^{_DENIAL} ", re.I)
"""A value `keyed` marked as the wrong one ("not 22 May")."""


def keyed(value: str, statement: str) -> str:
    """`value` with the key word right before it in `statement` ("code: 7315" of "the lockbox … code
    7315", "Ceremony: 7pm" of "Ceremony is at 7pm"): what a value is, kept when a cut leaves only values.
    A value the statement denies keeps the words that deny it ("not 22 May" of "23 May, not 22 May"): listed
    bare beside the right one, it would read as a second date."""
    at = _place_of(value, statement)
    before = statement[max(0, at - 24) : at].rstrip() if at > 0 else ""
    if (denied := _DENIED_BEFORE.search(before)) is not None:
        return f"{denied.group(0)} {value}"
    found = _KEY_BEFORE.search(before) if before else None
    key = (found.group(1) or found.group(2)) if found else ""
    return f"{key}{KEY_MARK}{value}" if key and not value.lower().startswith(key.lower()) else value


def _place_of(value: str, statement: str) -> int:
    """Where `value` stands in `statement` as a whole token ("3 May" of "23 May, not 3 May" is the second
    one, not the tail of the first); -1 when it does not."""
    whole = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", statement)
    return whole.start() if whole is not None else statement.find(value)


_DECISION = re.compile(
    r"\b(?:let's go with|let's do|going with|decided|we'll take|i'll take|i'll go with|booked|confirmed|"
    r"settled on|agreed|the plan is|switch(?:ed)? to|instead of|we're doing|final answer)\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:prefer(?:s|red)?|i'd rather|would rather|favou?rite|can't stand|allergic|intoleran|vegetarian|vegan|"
    r"wants?|don't like|do not like|love|hate|must|only|please use|no more than|at most|at least|budget|"
    r"deadline|time ?zone|metric|imperial)\b",
    re.I,
)
OVERALL_GOAL = re.compile(
    r"\b(?:what i'm (?:really )?trying to do|overall|my (?:main |end |real |big )?goal|the (?:main |whole )?goal is|"
    r"the (?:whole )?point (?:of|is)|what i (?:really )?want (?:out of|from) (?:this|it))\b",
    re.I,
)


def is_overall_goal(text: str) -> bool:
    """Whether `text` says what the user is trying to achieve overall ("what I'm trying to do overall is …")."""
    return OVERALL_GOAL.search(text[:SCAN_CHARS]) is not None


_LABEL = re.compile(LABEL_PATTERN + r"|^\s*remember\s*:", re.I)
_PLEASANTRY = re.compile(
    r"^(?:(?:hi|hey|hello|hiya|yo|morning|good (?:morning|evening|night|afternoon)|thanks?(?: you)?(?: so much)?|"
    r"thx|ty|cheers|ok(?:ay)?|k|cool|great|awesome|nice|perfect|lovely|sweet|sure|yes|yep|yeah|no|nope|"
    r"sounds (?:good|great|perfect)|got it|makes sense|will do|haha+|lol|wow|amazing|brilliant|you're welcome|"
    r"no problem|no worries|glad (?:to|i could) help|happy to help|of course|absolutely|exactly|right|"
    r"that helps|that's helpful|this is great|that's great|bye|see you|talk (?:soon|later)|good luck|"
    r"have fun|enjoy|hope (?:this|that) helps|let me know|anything else\??|you too|same)"
    r"(?:[\s,!.:)(-]+|\b(?:so much|a lot|again|then|for (?:that|this|the help)|mate|man|buddy|there|"
    r"friend|too|really|all|now|:\)|:d))*)+[\s!.?,:)(]*$",
    re.I,
)
WORD = re.compile(r"[\w'’-]+")


# "I GAVE THE BAGEL TO A CHILD", "CELIAC — SEPARATE PREP": three words in capitals in a row are shouted
_SHOUTED_RUN = re.compile(r"\b[A-Z]+(?:[ \t—–-]+[A-Z]+\b){2,}")
SHOUTED_WORD_LETTERS = 6


def _names_something(token: str) -> bool:
    """Not a stray letter, a filler word, or a word shouted ("IS", "FINALLY": a long word in capitals with
    vowels in it reads as a word, where GDPR reads as an acronym)."""
    if not (len(token) >= 2 or token.isdigit()) or token.lower() in _NOT_VALUES or is_shouted(token):
        return False
    long_word = token.isalpha() and token.isupper() and len(token) >= SHOUTED_WORD_LETTERS
    return not (long_word and sum(c in "AEIOU" for c in token) >= 2)


@functools.lru_cache(maxsize=65_536)  # a fold reads each statement several times (fit, supersede, check)
def values(text: str) -> tuple[str, ...]:
    """The value-bearing spans of `text` (identifiers, numbers with units, times, days), in order, once each."""
    scanned = without_blobs(text[:SCAN_CHARS])
    found: dict[str, None] = {}
    shouting = [m.span() for m in _SHOUTED_RUN.finditer(scanned)]
    for pattern in (IDENTIFIER, _VALUE):
        for match in pattern.finditer(scanned):
            token = without_opener(match.group(0).strip().rstrip(".,;:"))
            if _names_something(token) and not any(a <= match.start() < b for a, b in shouting):
                found.setdefault(token, None)
    # one value found by two patterns ("Sept 11" and "11") counts once
    return tuple(t for t in found if not any(t != other and mentions(other, t) for other in found))


# capitalised for emphasis or at a clause's start, not a name: "it IS slow", "NOT that", "… (The router"
_NOT_VALUES_WORDS = """
    is isn't not and but or the a an it its that this these those there then they you we he she his her
    our really very so also just only about check buy yes no ok okay please thanks sorry because
    if when what which who how why where all any some every each
"""
_NOT_VALUES = frozenset(_NOT_VALUES_WORDS.split())


def is_pleasantry(text: str) -> bool:
    """Greetings, thanks and acknowledgements with nothing else in them ("ok thanks!", "sounds good :)")."""
    flat = " ".join(text.split())
    return len(flat) <= 120 and _PLEASANTRY.match(flat) is not None


def words(text: str) -> int:
    return len(WORD.findall(text[:SCAN_CHARS]))


@functools.lru_cache(maxsize=65_536)
def salience(text: str) -> float:
    """Information per token of one statement: 0 for pleasantries, higher for values, facts and choices."""
    flat = " ".join(text[:SCAN_CHARS].split())
    if not flat or is_pleasantry(flat):
        return 0.0
    weight = 0.2 + 1.0 * min(len(values(flat)), 8)
    weight += 1.0 * bool(_FIRST_PERSON_FACT.search(flat)) + 1.5 * bool(_MY_VALUE.search(flat))
    weight += 1.5 * bool(_KEYED_VALUE.search(flat))
    weight += 1.5 * bool(_DECISION.search(flat))
    weight += 1.0 * bool(_PREFERENCE.search(flat))
    weight += 2.0 * bool(_LABEL.match(flat))
    score: float = weight / max(6, words(flat)) ** 0.7
    return score


def is_keyed(text: str) -> bool:
    """A statement that names a value by what it is ("my locker code is 8812", "Rule: …", "my X is Y")."""
    flat = text[:SCAN_CHARS]
    return bool(_KEYED_VALUE.search(flat) or _LABEL.match(flat) or (_MY_VALUE.search(flat) and values(flat)))


def carries_value(text: str) -> bool:
    """A statement someone may rely on: it names a value, a first-person fact, a decision or a preference."""
    flat = text[:SCAN_CHARS]
    return bool(values(flat) or _FIRST_PERSON_FACT.search(flat) or _DECISION.search(flat) or _PREFERENCE.search(flat))


def is_decision(text: str) -> bool:
    return _DECISION.search(text[:SCAN_CHARS]) is not None


# people write lowercase: "it. what I'm trying…" is two statements; "e.g. this" and "vs. that" are one
_SENTENCE_END = re.compile(rf"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.){TITLES}\s+(?=[\"'(\[$€£]?\w)")
# a line, a " · " between lines, and a "…" where statements were left out all end a statement
_LINE_END = re.compile(r"\n+| · |(?:^|\s)…(?:\s|$)")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])(?:\s+|$)")


def statements(text: str) -> list[str]:
    """The statements of a message: sentences, with list items as statements of their own, flattened."""
    return list(_statements(text))


@functools.lru_cache(maxsize=4096)
def _statements(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for line in _LINE_END.split(text):  # a list item's mark is read before its "2." can end a sentence
        opened = False
        for piece in _SENTENCE_END.split(_LIST_MARK.sub("", line)):
            flat = " ".join(piece.split())
            if flat and opened and ")" in flat:  # "(finally!!! after 2 years)": one aside, not two sentences
                out[-1] = f"{out[-1]} {flat}"
            elif flat:
                out.append(flat)
            opened = bool(out) and out[-1].count("(") > out[-1].count(")")
    return tuple(out)


# asterisks only: underscores belong to identifiers (`__future__`, `snake_case`)
_EMPHASIS = re.compile(r"\*\*|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])|^#{1,6}\s+", re.M)


def plain(text: str) -> str:
    """`text` without Markdown emphasis and heading marks: they cost tokens and state nothing."""
    return _EMPHASIS.sub("", text) if ("*" in text or "#" in text) else text


_ENDS_A_STATEMENT = (".", "!", "?", "…")  # "details:" or "the bins," at a line's end: the next line is another


def joined(parts: list[str]) -> str:
    """Statements on one line, kept apart where no punctuation ends them: "Window: 8:00 AM to 12:00 PM ·
    Technician: Luis Ortega" stays two statements (`statements` splits at " · "), not one that runs on."""
    out = ""
    for part in filter(None, parts):
        apart = not out or out.endswith(_ENDS_A_STATEMENT) or part.startswith("…")
        out = part if not out else f"{out} {part}" if apart else f"{out} · {part}"
    return out


def one_line(text: str) -> str:
    """`text` on one line (a snapshot item is one), its lines kept apart where no punctuation ends them."""
    return joined([" ".join(line.split()) for line in text.splitlines()])


def condense(text: str, limit: int) -> str:
    """`text` in at most about `limit` characters, keeping whole statements, the most informative first.

    Statements are chosen by salience and put back in their order; what is left out is marked with "…".
    A statement too long to keep whole keeps its clauses that carry a value; one is cut mid-way only when
    the single best alone is longer than `limit`.
    """
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    parts = statements(text)
    # a statement naming what someone will come back for (a code, "my X is", a labelled fact) goes first
    ranked = sorted(range(len(parts)), key=lambda i: (not is_keyed(parts[i]), -salience(parts[i]), i))
    chosen, gist = _choose(parts, ranked, limit)
    if not chosen:
        return clauses(parts[ranked[0]] if parts else flat, limit)
    out: list[str] = []
    for i, part in enumerate(parts):
        if i in chosen:
            out.append(part)
            continue
        if not out or out[-1] != "…":
            out.append("…")
        if i in gist:
            out += [gist[i], "…"]
    return _ONE_GAP.sub("…", joined(out))


_ONE_GAP = re.compile(r"…(?: …)+")


_CLAUSE_END = re.compile(r"(?<=[,;:])\s+|\s+(?=—|–\s|\(|\band\b|\bbut\b|\bso\b)")


def clauses(statement: str, limit: int) -> str:
    """One statement longer than `limit` cut to its clauses that carry a value, in order ("so let's bump
    the joint budget to $300 total, $150 each", not "I got paid a little extra for…"); its start when no
    clause carries one or the best alone is too long."""
    parts = [c for c in _CLAUSE_END.split(statement) if c]
    ranked = sorted(range(len(parts)), key=lambda i: (-salience(parts[i]), i))
    chosen, used = set(), 0
    for i in ranked:
        if salience(parts[i]) == 0 or used + len(parts[i]) + 2 > limit:
            continue
        chosen.add(i)
        used += len(parts[i]) + 2
    if not chosen:
        return statement[: max(1, limit - 1)].rstrip() + "…"
    out: list[str] = []
    for i, clause in enumerate(parts):
        if i in chosen:
            out.append(clause)
        elif not out or out[-1] != "…":
            out.append("…")
    return _ONE_GAP.sub("…", " ".join(out))  # a clause may hold an earlier cut's "…" already


def _choose(parts: list[str], ranked: list[int], limit: int) -> tuple[set[int], dict[int, str]]:
    """The statements kept whole, most informative first, then for those left out their values (a gist)
    while they fit: "… (7pm, Hacienda Santa Clotilde) …" beats "…"."""
    chosen: set[int] = set()
    gist: dict[int, str] = {}
    used = 0
    for i in ranked:
        if salience(parts[i]) == 0 and chosen:
            break
        if used + len(parts[i]) + 2 <= limit:
            chosen.add(i)
            used += len(parts[i]) + 2
    kept = " ".join(parts[i] for i in chosen)
    for i in ranked if chosen else []:
        if i in chosen or i in gist or "[" in parts[i]:
            continue
        found = [v for v in values(parts[i]) if not mentions(kept, v)]
        if found and salience(parts[i]) > 0 and used + len(short := f"({', '.join(found)})") + 4 <= limit:
            gist[i], kept = short, f"{kept} {short}"
            used += len(short) + 4
    return chosen, gist
