"""What a statement is worth keeping in a snapshot: information per token (DESIGN §7, salience selection).

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

from .facts import IDENTIFIER, without_blobs

SCAN_CHARS = 2000

# values a person may come back for: numbers with units, times, weekdays, quantities (besides `IDENTIFIER`)
_VALUE = re.compile(
    r"\b\d{1,2}(?::\d{2})\s?(?:[ap]\.?m\.?)?\b|\b\d{1,2}\s?[ap]\.?m\.?\b"  # 9:40, 7 pm
    r"|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"
    r"|(?<![\w.])\d+(?:[.,]\d+)?\s?(?:°[CF]?|%|x\b|[a-zA-Z]{1,12}\b)"  # 3 tablespoons, 180°C, 25 minutes, 2x
    r"|(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])",  # a bare number still says something
    re.I,
)
_FIRST_PERSON_FACT = re.compile(
    r"\b(?:I|we)(?:'m| am|'ve| have| had|'d| was| were| are| live| work| moved| got| just| started| left| "
    r"joined| bought| booked| need| use| own| run| teach| study| hate| love| like| can't| cannot| don't)\b"
    r"|\bmy (?:\w+ )?(?:wife|husband|partner|son|daughter|kids?|mom|mum|dad|mother|father|sister|brother|"
    r"friend|boss|dog|cat|doctor|team|company|manager|name|birthday|address|flight|budget|code|number|"
    r"account|order|car|job|salary|rent|landlord|apartment|flat|house|plan|deadline)\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:let's go with|let's do|going with|decided|we'll take|i'll take|i'll go with|booked|confirmed|"
    r"settled on|chose|picked|agreed|the plan is|switch(?:ed)? to|instead of|we're doing|final answer)\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:prefer(?:s|red)?|i'd rather|would rather|favou?rite|can't stand|allergic|intoleran|vegetarian|vegan|"
    r"wants?|don't like|do not like|love|hate|must|only|please use|no more than|at most|at least|budget|"
    r"deadline|time ?zone|metric|imperial)\b",
    re.I,
)
_LABEL = re.compile(r"^\s*(?:rule|constraint|note|fact|preference|important|reminder|remember)\s*:", re.I)
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


@functools.lru_cache(maxsize=4096)
def values(text: str) -> tuple[str, ...]:
    """The value-bearing spans of `text` (identifiers, numbers with units, times, days), in order, once each."""
    scanned = without_blobs(text[:SCAN_CHARS])
    found: dict[str, None] = {}
    for pattern in (IDENTIFIER, _VALUE):
        for match in pattern.finditer(scanned):
            token = match.group(0).strip().rstrip(".,;:")
            if len(token) >= 2 or token.isdigit():
                found.setdefault(token, None)
    return tuple(found)


def is_pleasantry(text: str) -> bool:
    """Greetings, thanks and acknowledgements with nothing else in them ("ok thanks!", "sounds good :)")."""
    flat = " ".join(text.split())
    return len(flat) <= 120 and _PLEASANTRY.match(flat) is not None


def words(text: str) -> int:
    return len(_WORD.findall(text[:SCAN_CHARS]))


@functools.lru_cache(maxsize=8192)
def salience(text: str) -> float:
    """Information per token of one statement: 0 for pleasantries, higher for values, facts and choices."""
    flat = " ".join(text[:SCAN_CHARS].split())
    if not flat or is_pleasantry(flat):
        return 0.0
    weight = 0.2 + 1.0 * min(len(values(flat)), 8)
    weight += 1.5 * bool(_FIRST_PERSON_FACT.search(flat))
    weight += 1.5 * bool(_DECISION.search(flat))
    weight += 1.0 * bool(_PREFERENCE.search(flat))
    weight += 2.0 * bool(_LABEL.match(flat))
    score: float = weight / max(6, words(flat)) ** 0.8
    return score


def carries_value(text: str) -> bool:
    """A statement someone may rely on: it names a value, a first-person fact, a decision or a preference."""
    flat = text[:SCAN_CHARS]
    return bool(values(flat) or _FIRST_PERSON_FACT.search(flat) or _DECISION.search(flat) or _PREFERENCE.search(flat))


def is_decision(text: str) -> bool:
    return _DECISION.search(text[:SCAN_CHARS]) is not None


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n+")
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


def condense(text: str, limit: int) -> str:
    """`text` in at most about `limit` characters, keeping whole statements, the most informative first.

    Statements are chosen by salience and put back in their order; what is left out is marked with "…".
    A statement is never cut mid-way unless the single best one alone is longer than `limit`.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    parts = statements(text)
    ranked = sorted(range(len(parts)), key=lambda i: (-salience(parts[i]), i))
    chosen: set[int] = set()
    used = 0
    for i in ranked:
        if salience(parts[i]) == 0 and chosen:
            break
        cost = len(parts[i]) + 2
        if used + cost <= limit:
            chosen.add(i)
            used += cost
    if not chosen:
        best = parts[ranked[0]] if parts else flat
        return best[: max(1, limit - 1)].rstrip() + "…"
    out: list[str] = []
    for i, part in enumerate(parts):
        if i in chosen:
            out.append(part)
        elif not out or out[-1] != "…":
            out.append("…")
    return " ".join(out)


_UPDATE_CUE = re.compile(
    r"\b(?:actually|now|instead|change[sd]?|update[sd]?|moved?|no longer|new|raise[sd]?|increase[sd]?|bump(?:ed)?|"
    r"lower(?:ed)?|reduce[sd]?|push(?:ed)? (?:back|to)|postpone[sd]?|reschedul\w*|correction|scratch that|"
    r"make it|switch(?:ed)?|not .{1,30} anymore|rather than|turns out|from now)\b",
    re.I,
)
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "have",
        "has",
        "had",
        "are",
        "was",
        "were",
        "will",
        "would",
        "could",
        "should",
        "can",
        "you",
        "your",
        "our",
        "their",
        "they",
        "them",
        "his",
        "her",
        "its",
        "but",
        "not",
        "all",
        "any",
        "just",
        "also",
        "then",
        "than",
        "into",
        "onto",
        "about",
        "over",
        "under",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "why",
        "there",
        "here",
        "been",
        "being",
        "did",
        "does",
        "doing",
        "done",
        "get",
        "got",
        "make",
        "made",
        "want",
        "need",
        "like",
        "please",
        "thanks",
        "okay",
        "yes",
        "actually",
        "now",
        "instead",
        "change",
        "changed",
        "update",
        "updated",
        "new",
        "raise",
        "bump",
        "moved",
        "move",
        "let",
        "lets",
        "i'm",
        "it's",
        "that's",
        "we're",
        "you're",
        "i've",
        "i'd",
        "don't",
        "can't",
        "won't",
        "total",
    ]
)


@functools.lru_cache(maxsize=8192)
def topic(text: str) -> frozenset[str]:
    """The content words of a statement without its values: what two statements about one thing share."""
    value_text = " ".join(values(text)).lower()
    out = set()
    for word in _WORD.findall(text[:SCAN_CHARS].lower()):
        word = word.strip("'’-")
        if len(word) >= 3 and word not in _STOP and not word[0].isdigit() and word not in value_text:
            out.add(word.rstrip("s") if len(word) > 4 else word)
    return frozenset(out)


def replaces(newer: str, older: str) -> bool:
    """Whether statement `newer` changes a value that `older` stated (an update, not a second fact).

    It must say so ("actually", "moved to", "raise the cap to", ...), be about the same thing (two content
    words in common), and name a value the older one did not."""
    if not _UPDATE_CUE.search(newer[:SCAN_CHARS]):
        return False
    new_values, old_values = set(values(newer)), set(values(older))
    if not new_values or not old_values or new_values <= old_values:
        return False
    return len(topic(newer) & topic(older)) >= 2
