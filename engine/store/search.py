"""Finding conversations by what was said: FTS5 queries built from what the user typed, and the line of a
message that matched."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UsageError
from .records import Conversation, SearchHit, conversation_of

Query = Callable[[str, Sequence[Any]], list[sqlite3.Row]]

CONVERSATION_ROWS = (
    "SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS n FROM conversations c"
)
_WORD = re.compile(r"[^\W_]+")  # what FTS5's unicode61 tokenizer calls a word
EXCERPT_CHARS = 100
MAX_SEARCH_CHARS = 1000  # a few words find a conversation; SQLite refuses a LIKE pattern past 50,000 bytes


def fts_query(text: str) -> str:
    """An FTS5 query for what the user typed: every word must appear, the last one may be unfinished
    (search as you type) when the text ends inside it. Operators and quotes are taken literally."""
    words = _WORD.findall(text[:MAX_SEARCH_CHARS])
    if not words:
        return ""
    phrases = [f'"{word}"' for word in words]
    if _WORD.fullmatch(text[-1:]):
        phrases[-1] += "*"
    return " ".join(phrases)


def matching_line(marked: str) -> str:
    """The line holding the first match (FTS5 `highlight` marks matches with \\x01..\\x02), cut to
    `EXCERPT_CHARS` around the match, markers removed."""
    at = marked.find("\x01")
    start = marked.rfind("\n", 0, max(at, 0)) + 1
    end = marked.find("\n", max(at, 0))
    line = marked[start : end if end >= 0 else len(marked)]
    at = line.find("\x01")
    line = line.replace("\x01", "").replace("\x02", "").strip()
    if len(line) <= EXCERPT_CHARS:
        return line
    begin = max(0, min(at - EXCERPT_CHARS // 3, len(line) - EXCERPT_CHARS))
    return ("…" if begin else "") + line[begin : begin + EXCERPT_CHARS] + "…"


def conversation_hits(
    query: Query, conversation: Callable[[int], Conversation], text: str, limit: int
) -> list[SearchHit]:
    """Conversations whose title contains `text` or whose messages hold its words, most recent first, each
    with the line of its best-matching message (read with `query`). A text over `MAX_SEARCH_CHARS` is refused."""
    if len(text) > MAX_SEARCH_CHARS:
        raise UsageError(
            f"the search text is {len(text):,} characters long: search for at most {MAX_SEARCH_CHARS:,} characters "
            "(a few words find a conversation)"
        )
    pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    titles = query(f"{CONVERSATION_ROWS} WHERE c.title LIKE ? ESCAPE '\\'", (pattern,))
    found = {row["id"]: SearchHit(conversation_of(row), "") for row in titles}
    match = fts_query(text)
    if match:
        rows = query(
            "SELECT f.rowid AS message_id, f.conversation_id AS cid,"
            " highlight(messages_fts, 1, char(1), char(2)) AS marked FROM messages_fts f"
            " WHERE messages_fts MATCH ? ORDER BY f.rank LIMIT ?",
            (match, limit * 20),
        )
        for row in rows:
            cid = int(row["cid"])
            if cid not in found or found[cid].message_id is None:  # the best-ranked message wins
                owner = found[cid].conversation if cid in found else conversation(cid)
                found[cid] = SearchHit(owner, matching_line(row["marked"]), int(row["message_id"]))
    hits = sorted(found.values(), key=lambda h: (h.conversation.updated_at, h.conversation.id), reverse=True)
    return hits[:limit]
