"""Finding the facts a fold must not lose: identifiers, constraints, decisions, questions.

Deterministic regular expressions, tuned for what people state in chats about code, trips or
contracts: ticket ids, dates, versions, paths, URLs, emails, money, names.
"""

from __future__ import annotations

import functools
import re

from .references import body
from .rule_words import DIET, PURPOSE, WANT, holds_to_diet

_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
WEEKDAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_TITLES = "Dr|Mr|Mrs|Ms|Prof"  # a title before a name: "Dr. Haskell"
NAME_LINKS = "van|von|de|del|della|des|der|den|dem|di|du|da|das|do|dos|la|le|las|los|y|zum|zur|am|im|of|of the"
IDENTIFIER = re.compile(
    "|".join(
        [
            r"https?://[^\s<>()\"'`]+",  # URLs
            # every pattern starts only where its first run starts (the lookbehinds), so no attempt rescans
            # a run an earlier attempt already scanned: linear time on hex, base64 or punctuation pastes
            r"(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.-]+",  # emails
            # ticket ids, orders and serials, all their parts: PROJ-1234, E-214, ORD-5562-19, NPX30-3B8D-44LM
            r"\b[A-Z][A-Z0-9]{0,9}-(?=[A-Z0-9-]*\d)[A-Z0-9]+(?:-[A-Z0-9]+)*\b",
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b",  # ISO dates
            r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b",  # addresses: 127.0.0.1:8000
            r"\b[a-z][\w.-]*:\d+(?:\.\d+)*\b",  # images and hosts with their tag or port: postgres:16.4
            # a date with its weekday: Saturday March 29, Tuesday 18 Feb
            rf"\b{WEEKDAY},? (?:(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?|"
            rf"\d{{1,2}}(?:st|nd|rd|th)? (?:{_MONTHS}))\b",
            r"(?<![\w)])(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}\b",  # phone numbers: (617) 555-0148
            rf"\b(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b",  # March 3, 2025
            rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:{_MONTHS})(?: \d{{4}})?\b",  # 3 March 2025
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b",
            r"(?:~|\.{1,2})?(?<![<\w])/(?:[\w.@+-]+/)*[\w.@+-]+",  # paths; not a closing tag's `</b`
            r"(?<![\w./-])\b[\w.-]+/(?:[\w.-]+/)*[\w-]+\.\w{1,8}\b",  # src/app/main.py
            r"(?<![\w-])\b[\w-]+\.(?:py|js|ts|tsx|jsx|md|toml|json|ya?ml|rs|go|java|kt|c|h|cpp|hpp|sql|sh|txt|cfg|ini|lock|"
            r"html|css|rb|php|swift|pdf|docx|xlsx|csv)\b",
            r"\bv?\d+\.\d+(?:\.\d+)+(?:[-+][\w.]+)?\b|\bv\d+(?:\.\d+)?\b",  # versions
            # money, with what it is per: $7/month, £2,900 a year, $912 per person
            r"[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion))?"
            r"(?:/(?:month|mo|year|yr|week|wk|day|night|hour|hr|person|head)\b|"
            r" (?:a|per) (?:year|month|week|day|night|hour|person|head)\b)?",
            r"(?<![\d,.])\b\d[\d,]*(?:\.\d+)?\s?(?:%|ms|s|GB|MB|KB|TB|GiB|MiB|km|kg|h|USD|EUR|GBP)(?!\w)",
            r"`[^`\n]{1,80}`",  # code spans
            r"\b[A-Z][A-Za-z]+ (?=[A-Z0-9-]*\d)[A-Z][A-Z0-9-]{1,10}\b",  # a product and its model: NetPoint AX30
            r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+\b",  # CamelCase names
            r"\b[a-z]+(?:_[a-z0-9]+)+\b",  # snake_case names
            # Person Names, Place Names, with the small words of Romance and Dutch names (Casa dos Azulejos)
            rf"\b(?:{_TITLES})\. [A-Z][a-zà-ÿ]+\b|"  # Dr. Haskell
            rf"\b[A-Z][a-zà-ÿ]+(?: (?:(?:{NAME_LINKS}) )*[A-Z][a-zà-ÿ]+)+\b",
            r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z][A-Z0-9]*[A-Z])[A-Z0-9]{5,12}\b",  # codes: KX7R2P, PRD58213
            r"\b[A-Z]{2,}\d*\b",  # acronyms: AWS, S3, GDPR
            r"\b#\d+\b|\b\d{3,}\b",  # issue numbers and long numbers
        ]
    )
)

# A labelled statement, also after a few words ("Rule:", "also important:", "most important thing and I
# almost forgot:"): what follows the colon is what the person wants kept. A numbered note is an entry of a
# series ("Day note 3:", "fact #2:"), and a label word among clauses reports ("fixed, constraint added, ran:").
LABEL_PATTERN = (
    r"^\W*(?:[\w']+[ ,]+){0,3}?(?:rule|constraint|preference|important|(?:note|fact|reminder)(?!\s*#?\d))\b"
    r"[^:.!?,\n]{0,30}:"
)
LABEL = re.compile(LABEL_PATTERN, re.I)
# Sentences that state a standing rule for the assistant.
CONSTRAINT = re.compile(
    r"\b(always|never|don't|do not|must|mustn't|should not|shouldn't|avoid|prefer|only use|make sure|"
    r"please use|no more than|at most|at least|keep it|without)\b",
    re.I,
)
# Statements in which the user sets a standing rule, constraint or preference for the rest of the
# conversation, or asks the assistant to keep a fact in mind: carried verbatim through every fold, like
# pinned text. Besides "always / never / from now on": obligations and limits, preferences, units, time
# zones, formats, budgets and deadlines, and labelled statements ("Rule:", "Note:", "Fact:", ...).
STANDING_RULE = re.compile(
    r"\b(?:always|never|from now on|going forward|from here on|for the rest of (?:this|the) conversation|"
    r"in (?:the )?future|(?:answer|reply|respond|write|talk|speak)(?: to me)?(?: only)? in|"
    # "call me Sam" names; "call me friday" asks for a call
    rf"call me(?! (?:back|later|tonight|tomorrow|today|when|if|on|at|in|after|before|around|any|some|first|"
    rf"next|this|{WEEKDAY})\b)|address me as|refer to me as|(?:don't|do not) ever|no more|"
    r"keep (?:it|this|that)(?: [\w-]+){0,2} (?:in mind|handy)|"
    r"remember (?:that|this|it)|don't forget|on your radar|allerg(?:y|ies|ic)|"
    # what a person holds to in so many words: "I'd rather", "a hard limit", "without asking me first"
    r"i(?:'d| would) rather|hard (?:limit|cap)|without asking|(?:don't|do not) suggest|please use|"
    r"non[- ]negotiable|no exceptions|(?:keep|bear) in mind that|"
    r"how i (?:want|like) you to (?:answer|reply|write|quote)|(?:goes|applies) for (?:anything|everything|all))\b"
    r"|" + LABEL_PATTERN,
    re.I,
)
# Constraints and preferences stated in broader words: obligations and limits, likes, units, time zones,
# formats, budgets, deadlines. Carried verbatim like standing rules, within a share of the snapshot
# (`fold.fit`): an agent's task prompt says "must" and "do not" a hundred times. Searched after
# `STANDING_RULE`, so what that one matches ("I'd rather", "without asking", allergies) is not repeated here.
PREFERENCE_RULE = re.compile(
    r"\b(?:must(?:n't| not)?|only (?:use|answer|reply|write|want|eat|drink|fly|book|take|suggest|recommend|in)|"
    r"(?:do not|don't) (?:use|suggest|recommend|add|book|include|mention|bring up|send|give)|prefers?|"
    # what someone wants is a wish ("Theo wants to see Guernica", "I want the Prado"), not a rule, unless it is
    # refused, asked of someone or bounded ("she wants everything separate and touching nothing"): `WANT`
    rf"would rather|{WANT}|please keep|make sure|no more than|at most|"
    r"at least|metric|imperial|time ?zone|America/\w+|Europe/\w+|in (?:\w+ )?format|"
    r"(?:budget|spending|price) (?:cap|limit)|budget is|deadline|for later|em[- ]dash(?:es)?|"
    r"(?:has|have|needs?) to be|has to|can only|only (?:be|on|after|before)|"
    r"vegetarian|vegan|gluten|lactose|halal|kosher|no (?:\w+ ){1,2}(?:before|after|over|under|above|below))\b",
    re.I,
)
RULE_CHARS = 500  # a rule longer than this is not a rule but a paste
_QUESTION_START = re.compile(r"^(?:do|does|did|can|could|would|should|is|are|what|which|how|why|when|where)\b", re.I)
# "can you, from now on, put the ticket number at the top?" asks for a standing rule, it does not ask a question
_STANDING_REQUEST = re.compile(
    r"^(?=.*\b(?:can|could|would|will) you\b)(?=.*\b(?:from now on|going forward|from here on|always|never)\b)",
    re.I,
)


def is_question(text: str) -> bool:
    return text.endswith("?") or (_QUESTION_START.match(text) is not None and "?" in text)


def asks(text: str) -> bool:
    """A question that sets nothing (a request for a standing rule phrased as a question sets one)."""
    return is_question(text) and _STANDING_REQUEST.match(text) is None


def states_rule(text: str) -> bool:
    scanned = text[:SENTENCE_SCAN_CHARS]
    found = next(
        (
            found
            for pattern in (STANDING_RULE, PREFERENCE_RULE)
            for found in pattern.finditer(scanned)
            if not PURPOSE.search(scanned, 0, found.start())  # "so I don't forget" is what it is for
        ),
        None,
    )
    if found is not None and DIET.fullmatch(found.group(0)) and not holds_to_diet(scanned):
        return False
    return (
        found is not None and not _DESCRIBES_SOMEONE.search(scanned, 0, found.end()) and not _NEVER_DID.search(scanned)
    )


# "never heard of Brightloom", "I've never been": what did not happen, not a rule
_NEVER_DID = re.compile(
    r"\bnever (?:\w+ly )?(?:heard|seen|met|been|tried|noticed|realized|realised|thought|knew|known|know|remember|"
    r"understand|get|used|said|did|had|went|got|told|asked|saw|made|gave|took|liked|wanted|cared)\b",
    re.I,
)


# "she will never forward it", "he's always been curious", "I've never broken an hour", "I may never move
# again": what someone does or did, not a rule for the assistant ("I never eat pork" and "you never bring
# up Dana" stay rules)
_DESCRIBES_SOMEONE = re.compile(
    r"\b(?:(?:he|she|they|it)(?:'ll|'s|'ve|'d| will| would| does| did| is| was| has| have| had)?"
    r"|(?:i|we)(?:'ve| have| had| may| might| was| were)|most \w+|customers|users|people|everyone|nobody)"
    r"(?: \w+ly)? (?:never|always|no more)\b",
    re.I,
)


def is_constraint(sentence: str) -> bool:
    """A sentence that sets a constraint in the broad words of `CONSTRAINT`, not one that only uses them:
    "I don't know", "don't worry", "don't laugh" and "without" alone constrain nothing."""
    scanned = sentence[:SENTENCE_SCAN_CHARS]
    return any(
        not _LOOSE_WORD_ONLY.match(scanned, found.start()) and not PURPOSE.search(scanned, 0, found.start())
        for found in CONSTRAINT.finditer(scanned)
    ) and (not _DESCRIBES_SOMEONE.search(scanned) and not _NEVER_DID.search(scanned))


_LOOSE_WORD_ONLY = re.compile(
    r"(?:don't|do not) (?:worry|laugh|argue|judge|panic|mind|know|think|get me wrong|even|care|remember|"
    r"have (?:a|any|the)|feel|want|need|see|get|understand|hate|love|like)\b|without\b(?! (?:asking|checking|"
    r"approval|permission|telling|confirming))",
    re.I,
)


def is_standing_rule(item: str) -> bool:
    """A snapshot item that states a rule, constraint or preference of the user's (either pattern)."""
    item = body(item)  # a snapshot item's message reference is not part of what the user said
    if item.startswith(REPLACED_MARK):  # a value a later message changed is history, not a rule in force
        return False
    return len(item) <= RULE_CHARS and not asks(item) and states_rule(item)


def is_pinned_rule(item: str) -> bool:
    """A standing rule in the strong sense ("always", "never", "from now on", "Rule:", "keep in mind"), or
    one that changed a rule ("she wants me at 1,500 mg now, not 2,000 [current; replaces #21]": the limit
    in force): never cut when a snapshot is fitted, like pinned text."""
    text = body(item)
    strong = STANDING_RULE.search(text, 0, SENTENCE_SCAN_CHARS) is not None or CURRENT_MARK in text
    return strong and is_standing_rule(item)


REPLACED_MARK = "[replaced by"
CURRENT_MARK = "[current; replaces"
FOCUS_MARK = "focus requested for this fold: "
"""The key fact a /resummarize focus adds: it says what the user asked this fold to keep, and is never cut."""


DECISION = re.compile(
    r"\b(decided|decide to|we'll|we will|i'll|i will|let's|going with|chose|choose|switch(?:ed)? to|"
    r"instead of|the plan is|settled on|agreed)\b",
    re.I,
)
ERROR_LINE = re.compile(
    r"^.*(?:Traceback|Error\b|error:|ERROR|FAILED|Exception|fatal:|panic:|No such file|not found|"
    r"Permission denied|command not found).*$",
    re.M,
)
# "Dr. Haskell wants me to…" is one sentence: a title's full stop ends nothing
TITLES = "".join(rf"(?<!\b{title}\.)" for title in [*_TITLES.split("|"), "St"])
_SENTENCE = re.compile(rf"(?<=[.!?]){TITLES}\s+|\n+")
_STOPWORDS = frozenset({"The", "This", "That", "These", "Those", "When", "What", "Where", "Why", "How"})
# Words people (and agent prompts) shout: "IMPORTANT", "DO NOT", "AT LEAST ONE", "THOUGHT". In capitals
# they match the acronym pattern, but they name nothing, so they are not identifiers.
_SHOUTED_WORDS = """A AN AND ANY ARE AS AT BE BEFORE BUT BY CAN DO DON DONE EACH EVERY EXACTLY FOR FROM HAVE IF IMPORTANT IN
    INSTEAD IS IT ITS LEAST MAY MORE MOST MUST NEVER NEW NO NONE NOT NOTE NOTHING NOW OF OFF OK ON ONE ONLY OR
    OUR OUT PLEASE SHOULD SO STOP THAT THE THEN THIS THOUGHT TO TWO USE WARNING WE WHEN WILL WITH YES YOU YOUR
    ALWAYS ALL ACTION ANSWER BASH CRITICAL DONT FINAL FORMAT HINT INSTRUCTIONS NEXT OBSERVATION OUTPUT
    REMEMBER RESPONSE RULES STEP TASK TIP TODO FIXME THANKS"""
_SHOUTED = frozenset(_SHOUTED_WORDS.split())


# Words that open a sentence or clause in capitals and so join the name after them ("Hey Mel", "Because
# Theo", "So Postgres", "Last Frida"): they are not part of the name.
_OPENER_WORDS = """A An The About After Again Also Although And Anyway Ask At Because Before Besides But By Call Congrats Dear
    Did Does Even Every For From Good Happy Hello Hey Hi Honestly How If In Is Just Last Let Like Love Maybe Meanwhile
    Next Not Now Oh Ok Okay On Or Our Please Plus Since So Sorry Still Sure Tell Text Thanks That Then There These
    This Those Though To Today Tomorrow Tonight Unless Until Was Well What When Where While Why With Yeah Yes
    Yesterday Yet Your My His Her Their Its"""
_OPENERS = frozenset(_OPENER_WORDS.split())


def without_opener(token: str) -> str:
    """A capitalised name without the sentence-opening words caught with it: "Hey Mel" is Mel."""
    words = token.split(" ")
    while len(words) > 1 and words[0] in _OPENERS:
        words = words[1:]
    return " ".join(words)


def is_shouted(token: str) -> bool:
    """A common word in capitals for emphasis ("it IS slow", "MY sister"), not an acronym."""
    return token in _SHOUTED or token.capitalize() in _OPENERS


BLOB_CHARS = 200  # a run this long without a space is a blob (hex, base64, a line of dashes), not a name
_SPACES = re.compile(r"(\s+)")


def without_blobs(text: str) -> str:
    """`text` with every run of `BLOB_CHARS`+ non-space characters (URLs excepted) replaced by a space.

    The identifier pattern tries each of its branches at every position of a run, which costs about
    a microsecond per character in pure-regex time; a 1 MB hex or base64 paste would take seconds, and it
    holds no identifier worth keeping verbatim. The split is one C-level pass, linear in the text.
    """
    if len(text) < BLOB_CHARS:
        return text
    parts = _SPACES.split(text)
    if max(map(len, parts)) < BLOB_CHARS:  # map/max stay in C: a third of a generator's time
        return text
    return "".join(
        " " if len(part) >= BLOB_CHARS and not part.startswith(("http://", "https://")) else part for part in parts
    )


def identifiers(text: str, limit: int = 60) -> list[str]:
    """Identifiers in `text`, in order of first appearance, without duplicates (blobs skipped)."""
    return list(_identifiers(text, limit))


@functools.lru_cache(maxsize=16)  # a fold asks for the same long message's identifiers several times
def _identifiers(text: str, limit: int) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for match in IDENTIFIER.finditer(without_blobs(text)):
        token = without_opener(match.group(0).rstrip(".,;:"))
        if len(token) < 2 or token in _STOPWORDS or is_shouted(token):
            continue
        seen.setdefault(token, None)
        if len(seen) >= limit:
            break
    return tuple(seen)


SENTENCE_SCAN_CHARS = 2000  # rules and decisions are stated near a sentence's start, not 1 MB into it


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@functools.lru_cache(maxsize=16)  # the rules summarizer splits one message for several patterns
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _SENTENCE.split(text) if s and s.strip())


def first_sentence(text: str, limit: int = 200) -> str:
    for sentence in _SENTENCE.split(text[: 4 * limit + SENTENCE_SCAN_CHARS]):  # only the start can hold it
        if sentence and sentence.strip():
            return clip(sentence, limit)
    return ""


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def shorten(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, every identifier of the cut part appended verbatim."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[:limit].rstrip()
    missing = [i for i in identifiers(flat, limit=200) if i not in head]
    suffix = f" [… identifiers: {', '.join(missing)}]" if missing else " […]"
    return head + "…" + suffix


_LIST_ITEM = re.compile(r"^[-*•]\s+")


def matching_sentences(pattern: re.Pattern[str], text: str, limit: int = 300) -> list[str]:
    """The sentences of `text` that `pattern` matches, a list item's bullet left out ("- - don't…")."""
    found = (_LIST_ITEM.sub("", s) for s in _sentences(text))
    return [clip(s, limit) for s in found if pattern.search(s, 0, SENTENCE_SCAN_CHARS)]


def first_error_line(text: str) -> str | None:
    match = ERROR_LINE.search(text)
    return clip(match.group(0), 240) if match else None


_EXIT = re.compile(
    r"(?:exit(?:ed)?(?: with)?(?: status| code)?|return ?code|returncode|exit_code)\W{0,3}(-?\d{1,9})(?!\d)", re.I
)


def exit_code(text: str) -> int | None:
    """An exit status stated in a shell tool's output ("exit code: 1", {"exit_code": 2}, ...)."""
    match = _EXIT.search(text[-2000:]) or _EXIT.search(text[:2000])
    return int(match.group(1)) if match else None


def mentions(text: str, value: str) -> bool:
    """`value` stands in `text` as a whole (AAA-100 is not in "AAA-1000", nor /a/b.py in "/a/b.pyc", nor
    parse_args in "parse_args_v2")."""
    at = text.find(value)
    while at != -1:
        end = at + len(value)
        if (at == 0 or not _word_char(text[at - 1])) and (end == len(text) or not _word_char(text[end])):
            return True
        at = text.find(value, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"
