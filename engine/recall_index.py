"""Ranked full-text search over one conversation's messages: what recall (automatic, at every send, and the
`recall` tool) finds the words of a new message in (docs/design.md §14).

An in-memory SQLite FTS5 index, built once per open conversation and fed as it grows (a 10k-message
conversation is indexed once, then each send adds only its new messages), searched with bm25 over *any*
of the query's words (OR), in two tokenizations: the words as written and their Porter stems ("move"
finds "moved"). A query is weighted terms (`Query`): the new message's words, its names and numbers
counted again, and the words of the exchange before it at a lower weight; each weight is one bm25
pass, and a message's score is the weighted sum. Every message of the conversation is indexed, so the
rarity of a word is the conversation's; a search returns only the message numbers it is allowed to.
Ties go to the newer message.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass

INDEXED_CHARS = 200_000  # of each message: enough for any conversation text, bounded for a pasted dump
QUERY_TERMS = 32  # a query is words to look for, not a document: a 1 MB message is searched by its first words
STEMMED_WEIGHT = 0.35
"""How much a match of a word's stem counts beside the word itself: "raising" finds "raised", but the
message that uses the asker's own words ranks first."""

PER_LIST = 300
"""The best rows each weighted list contributes: a common word matches thousands of messages of a long
conversation, and scoring every one of them cost ~50 ms a send at 10,000 messages (a message below the
first 300 of one list gains too little from it to change the top few)."""

WORD = re.compile(r"[^\W_]+")  # what FTS5's unicode61 tokenizer calls a word
STOP_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "from", "by", "about", "into", "over", "after", "before", "than", "then", "so", "if", "as", "is", "are", "was", "were", "be", "been", "being", "am", "it", "its", "this", "that", "these", "those", "there", "here", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "do", "does", "did", "done", "i", "me", "my", "mine", "we", "us", "our", "you", "your", "yours", "he", "him", "his", "she", "her", "they", "them", "their", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "any", "some", "all", "also", "just", "only", "up", "down", "out", "off", "much", "many", "more", "most", "very", "too", "again", "ever", "still", "yet", "let", "lets", "get", "got", "tell", "remind", "remember", "said", "say", "says", "mention", "mentioned", "earlier", "chat", "conversation", "exactly", "name", "named", "called", "thing", "things", "one", "ok", "okay", "thanks", "thank", "please", "hi", "hello", "hey", "yeah", "sure", "right", "well", "oh", "like", "know", "think", "want", "need", "go", "going", "now", "again", "back", "s", "t", "d", "ll", "re", "ve", "m"]
)


@dataclass(frozen=True)
class Query:
    """Weighted term lists: each list is one OR query, its bm25 counted `weight` times."""

    terms: tuple[tuple[tuple[str, ...], float], ...]

    @property
    def empty(self) -> bool:
        return not any(words for words, _ in self.terms)

    def words(self) -> list[str]:
        """Every term of the query, the most weighted lists first (for excerpts)."""
        ordered = sorted(self.terms, key=lambda t: -t[1])
        return list(dict.fromkeys(w for words, _ in ordered for w in words))


def content_words(text: str, limit: int = QUERY_TERMS) -> list[str]:
    """The words of `text` worth searching for: lowercased, no stop words, each once, in order."""
    found = (w.lower() for w in WORD.findall(text[:20_000]))
    return list(dict.fromkeys(w for w in found if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())))[:limit]


def key_words(text: str, limit: int = QUERY_TERMS) -> tuple[list[str], list[str]]:
    """Numbers and names of `text` (a word with a digit; a capital inside a sentence): what identifies a
    thing. Each once, lowercased, numbers first."""
    numbers: list[str] = []
    named: list[str] = []
    for sentence in re.split(r"[.!?\n]+", text[:20_000]):
        for position, word in enumerate(WORD.findall(sentence)):
            if any(c.isdigit() for c in word):
                numbers.append(word.lower())
            elif position > 0 and word[:1].isupper() and word.lower() not in STOP_WORDS:
                named.append(word.lower())
    return list(dict.fromkeys(numbers))[:limit], list(dict.fromkeys(named))[:limit]


NUMBER_WEIGHT = 0.8  # numbers and codes counted again: "40172236" or "B-417" outrank "guesthouse"
NAME_WEIGHT = 0.2
"""Names counted again, a little: a name the question shares with many messages ("Theo", "Porto") is
common in its conversation, and weighted like a number it outranked the message that answered
(measured on bench/chats: top-3 0.79 with names at 0.8, 0.84 with numbers only; bench/memory_bench.py)."""
CONTEXT_WEIGHT = 0.25  # the exchange before the message: what "and the other one?" is about


def query_for(message: str, before: str = "") -> Query:
    """The query for a new message and the exchange before it (see the module docstring)."""
    words = content_words(message)
    numbers, named = key_words(message)
    context = [w for w in content_words(before, 16) if w not in words]
    return Query(
        (
            (tuple(words), 1.0),
            (tuple(numbers), NUMBER_WEIGHT),
            (tuple(named), NAME_WEIGHT),
            (tuple(context), CONTEXT_WEIGHT),
        )
    )


def _match(words: Iterable[str]) -> str:
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


class RecallIndex:
    """The index of one conversation's messages, by message number (see the module docstring).
    Thread-safe: a send's worker and the tool's answer may search it at once."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._texts: dict[int, str] = {}
        for table, tokenizer in (("exact", "unicode61"), ("stems", "porter unicode61")):
            self._db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize = '{tokenizer}')")

    def close(self) -> None:
        self._db.close()

    def sync(self, messages: Iterable[tuple[int, str]]) -> None:
        """Index `messages` (number, text): new numbers are added, a number whose text changed (a reply
        that streamed on) is indexed again; the rest costs a comparison."""
        # the store hands back the same text objects while a message is unchanged: `is` settles most at once
        changed = [(n, t[:INDEXED_CHARS]) for n, t in messages if (known := self._texts.get(n)) is not t[:INDEXED_CHARS]
                   and known != t[:INDEXED_CHARS]]  # fmt: skip
        if not changed:
            return
        with self._lock:
            for table in ("exact", "stems"):
                self._db.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(n,) for n, _ in changed])
                self._db.executemany(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", changed)
            self._db.commit()
            self._texts.update(changed)

    def scores(self, query: Query, allowed: Collection[int]) -> dict[int, float]:
        """Each allowed message number that matches `query`, with its score (higher is better)."""
        scores: dict[int, float] = {}
        named: set[int] = set()  # matched by the message's own words, not only by the exchange before it
        with self._lock:
            for words, weight in query.terms:
                if not words:
                    continue
                for table, factor in (("exact", 1.0), ("stems", STEMMED_WEIGHT)):
                    rows = self._db.execute(
                        f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY bm25({table})"
                        " LIMIT ?",
                        (_match(words), PER_LIST),
                    )
                    for number, score in rows:  # bm25() is negative: the lower, the better
                        if number in allowed:
                            scores[number] = scores.get(number, 0.0) - weight * factor * score
                            if weight > CONTEXT_WEIGHT:
                                named.add(number)
        return {number: score for number, score in scores.items() if number in named}

    def ranked(self, query: Query, allowed: Collection[int], limit: int) -> list[tuple[int, float]]:
        """The best `limit` allowed numbers for `query`, best first; equal scores: the newer first."""
        scores = self.scores(query, allowed)
        best = sorted(scores.items(), key=lambda item: (-round(item[1], 9), -item[0]))
        return best[:limit]
