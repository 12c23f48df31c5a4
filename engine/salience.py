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

from .facts import IDENTIFIER, LABEL_PATTERN, NAME_LINKS, TITLES, is_shouted, mentions, without_blobs, without_opener

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
    r"|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"
    # a range or a fraction with its unit, whole: "3 to 4 days", "5–10%", "1 1/2 cups", "14-16 minutes"
    rf"|(?<![\w.\-/])\d+(?:[.,]\d+)?\s?(?:–|-|to)\s?\d+(?:[.,]\d+)?\s?(?i:{_UNITS})(?!\w)"
    rf"|(?<![\w.\-/])\d+ \d/\d+\s?(?i:{_UNITS})(?!\w)"
    rf"|(?<![\w.\-/])-?\d+(?:[.,]\d+)?\s?(?i:{_UNITS})(?!\w)"  # 3 tablespoons, 180°C, 25 minutes, 10%
    r"|(?<![\w.\-/])\d+-[a-z]{3,}\b"  # a size: a 6-quart slow cooker, a 15-foot truck
    r"|(?<![\w.\-/])\d+(?:[.,]\d+)*(?![\w.])"  # a bare number still says something
    # a capitalised word that does not start a sentence: a person, a place, a product (Theo, Lisbon)
    r"|(?<=[a-z,;:()] )(?!(?:I|I'm|I'd|I've|I'll|OK|Ok)\b)[A-Z][a-zà-ÿ]+"
    rf"(?:(?:[ -](?:(?:{NAME_LINKS}) )*)[A-Z][a-zà-ÿ]+)*",
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
_KEYED_VALUE = re.compile(
    r"\b(?:code|number|no\.|password|pin|address|account|id|reference|confirmation|booking|order|ticket|serial|"
    r"model|flight|room|seat|gate|platform|locker|port|version|phone)\b[^.\n]{0,24}?\d",
    re.I,
)
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
_WORD = re.compile(r"[\w'’-]+")


@functools.lru_cache(maxsize=65_536)  # a fold reads each statement several times (fit, supersede, check)
def values(text: str) -> tuple[str, ...]:
    """The value-bearing spans of `text` (identifiers, numbers with units, times, days), in order, once each."""
    scanned = without_blobs(text[:SCAN_CHARS])
    found: dict[str, None] = {}
    for pattern in (IDENTIFIER, _VALUE):
        for match in pattern.finditer(scanned):
            token = without_opener(match.group(0).strip().rstrip(".,;:"))
            if (len(token) >= 2 or token.isdigit()) and token.lower() not in _NOT_VALUES and not is_shouted(token):
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
    return len(_WORD.findall(text[:SCAN_CHARS]))


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
_SENTENCE_END = re.compile(
    rf"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.){TITLES}\s+(?=[\"'(\[]?\w)|\n+| · "
)
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")


def statements(text: str) -> list[str]:
    """The statements of a message: sentences, with list items as statements of their own, flattened."""
    return list(_statements(text))


@functools.lru_cache(maxsize=4096)
def _statements(text: str) -> tuple[str, ...]:
    out = []
    for piece in _SENTENCE_END.split(text):
        flat = " ".join(_LIST_MARK.sub("", piece).split())
        if flat:
            out.append(flat)
    return tuple(out)


# asterisks only: underscores belong to identifiers (`__future__`, `snake_case`)
_EMPHASIS = re.compile(r"\*\*|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])|^#{1,6}\s+", re.M)


def plain(text: str) -> str:
    """`text` without Markdown emphasis and heading marks: they cost tokens and state nothing."""
    return _EMPHASIS.sub("", text) if ("*" in text or "#" in text) else text


def condense(text: str, limit: int) -> str:
    """`text` in at most about `limit` characters, keeping whole statements, the most informative first.

    Statements are chosen by salience and put back in their order; what is left out is marked with "…".
    A statement too long to keep whole keeps its clauses that carry a value; one is cut mid-way only when
    the single best alone is longer than `limit`.
    """
    flat = " ".join(text.split())
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
    return _ONE_GAP.sub("…", " ".join(out))


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
    return " ".join(out)


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


_UPDATE_CUE = re.compile(
    # "actually" opens a correction ("oh wait, actually it's 7"), not "until she actually swallows"; "410
    # updated" counts rows, it changes nothing
    r"(?:^|[.,;:!?—(]\s*|\b(?:oh|ok|okay|wait|no|um|hmm|so|but),? )actually\b|"
    r"\b(?:instead|chang(?:e[sd]?|ing)|(?<!\d )updat(?:ed|ing)|update (?:the|my|our|it|that|this|to|from)|moved?|moving|no longer|rais(?:e[sd]?|ing)|"
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


def core(value: str) -> str:
    """A value as compared with another: "$160 per week" is "$160", "$70.00" is "$70", `stock_items` is
    stock_items (an update names the old value in fewer words than it was stated in)."""
    bare = value.strip("`")
    if bare[:1] in "$€£":
        bare = re.sub(r"(?<=\d)\.0+$", "", _PER.sub("", bare))
    return bare


def compared_values(text: str) -> frozenset[str]:
    """The values of `text` as compared with another statement's (`core`)."""
    return frozenset(core(v) for v in values(text))


@functools.lru_cache(maxsize=65_536)  # supersede asks it for every value of every pair of statements
def kind_of(value: str) -> str:
    """What a value is a value of: money, time, date, number or name."""
    return next((name for name, pattern in _KINDS if pattern.search(value)), "other")


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
    should would could maybe
"""
_STOP = frozenset(_STOP_WORDS.split())


# "every time I switch", "one at a time": no time of anything, so no slot two statements share
_NO_TIME = re.compile(r"\b(?:every|each|any|some|this|next|last|first|one|a|no|the whole|all the|in) time\b", re.I)


@functools.lru_cache(maxsize=65_536)
def topic(text: str) -> frozenset[str]:
    """The content words of a statement without its values: what two statements about one thing share."""
    value_text = " ".join(values(text)).lower()
    out = set()
    for word in _WORD.findall(_NO_TIME.sub(" ", text[:SCAN_CHARS].lower())):
        word = word.strip("'’-")
        if len(word) >= 3 and word not in _STOP and not word[0].isdigit() and word not in value_text:
            out.add(word.rstrip("s") if len(word) > 4 else word)
    return frozenset(out)


def has_update_cue(text: str) -> bool:
    return _UPDATE_CUE.search(text[:SCAN_CHARS]) is not None


def replaces(newer: str, older: str, cue: bool = False) -> bool:
    """Whether statement `newer` changes a value that `older` stated (an update, not a second fact).

    It must say so ("actually", "moved to", "raise the cap to", ...; `cue`: the message it comes from said
    so in another sentence, "new phone number. … the callback number is …"), be about the same thing (a content
    word in common), and name a value the older one did not, of a kind the older one had (a price for a
    price, a time for a time; "from $500 to $650" names both)."""
    if older.startswith("[replaced by") or not (cue or has_update_cue(newer)):
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
    if not same_kind and not (_renamed(changed, old_values) and has_update_cue(newer)):
        return False
    kinds = {kind_of(v) for v in changed} - {"name"}
    if any(kind_of(v) in kinds for v in new_values & old_values):  # "replacing the $70 one", "not 7315 anymore"
        return True
    if any(_CODE.search(v) for v in new_values & old_values):  # the same booking moved: "GP-7731 to 19:30"
        return True
    shared = topic(newer) & topic(older)
    if not has_update_cue(newer):  # the cue is another sentence's: one long word in common is not enough
        return len(shared) >= 2 or bool(shared & _SLOTS)
    return len(shared) >= 2 or any(w in _SLOTS or len(w) >= 6 for w in shared)


# what a value is a value of: one of these in common is enough to call two statements about one thing
_SLOTS_WORDS = """
    cap budget limit code number date time address name price cost fee rent salary port deadline phone
    email flight train hotel room table plan password pin day
"""
_SLOTS = frozenset(_SLOTS_WORDS.split())


def _renamed(changed: frozenset[str], old_values: frozenset[str]) -> bool:
    """A name changed for a name ("switch Seville to Patio de las Naranjas"): only names on both sides."""
    return all(kind_of(v) == "name" for v in changed) and any(kind_of(v) == "name" for v in old_values)
