"""Recall (issue 15): the verbatim originals behind a fold, by text or by message number.

A fold changes what is sent, never what is kept; recall is how the model (through a `recall` tool, for
models that support tool calls) or the user gets a folded or pruned original back word for word.
Only messages the context no longer holds verbatim are searched (folded into the snapshot, pruned to a
stub or condensed), so recall never repeats what the model already sees. A text query is ranked
full-text search (SQLite FTS5, bm25, Porter stems): the words a model asks with ("charity race
awareness") find the message that says them in other forms ("the charity race raised awareness"), best
match first, with the numbers of the next best. Answers are bounded to
`RECALL_CHARS` characters and end with how to ask for the rest. Message numbers are the
conversation's own (1-based transcript positions, the numbers snapshots and stubs name).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import untrusted_json
from .messages import Message, ToolCall
from .providers import ModelTarget

RECALL_CHARS = 4_000
MAX_MATCHES = 20

RECALL_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "recall",
        "description": (
            "Get back, verbatim, earlier messages of this conversation that were folded into the state "
            "snapshot or pruned to a one-line stub. Search by text, or ask for a message number: the "
            'snapshot\'s covers="first..last" range, each stub and each snapshot item, as in (#12) or '
            "(#3, #9), name them. Long messages come in parts: pass the offset the answer gives."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to search for; the best match comes first."},
                "message": {"type": "integer", "description": "A message number, as the snapshot names it."},
                "offset": {"type": "integer", "description": "Where to continue a long message (characters)."},
            },
        },
    },
}


@dataclass(frozen=True)
class Original:
    """A message the context no longer holds verbatim, with its number in the transcript."""

    number: int
    message: Message


def recallable(transcript: Sequence[tuple[int, Message]], context: Sequence[Message]) -> list[Original]:
    """Transcript messages (numbered) that the context does not send word for word."""
    sent = {m.key: m.text for m in context if m.key is not None}
    return [Original(n, m) for n, m in transcript if m.key is None or sent.get(m.key) != m.text]


def recall(originals: Sequence[Original], query: str | None = None, message: int | None = None, offset: int = 0) -> str:
    """The answer to one `recall` call: a message's verbatim text (a bounded part), or what matched."""
    if message is not None:
        found = next((o for o in originals if o.number == message), None)
        if found is None:
            numbers = ", ".join(str(o.number) for o in originals[:MAX_MATCHES]) or "none"
            return f"message {message} is not folded or pruned (recallable: {numbers})"
        return _part(found, max(0, offset))
    if not query or not query.strip():
        return "recall needs a query or a message number"
    matches = search(originals, query, MAX_MATCHES)
    if not matches:
        return f"no folded or pruned message matches {query.strip()[:200]!r}"
    others = ", ".join(str(o.number) for o in matches[1:])
    also = f"\n(next best matches: messages {others}; call recall with message=N)" if others else ""
    return _part(matches[0], 0) + also


_WORD = re.compile(r"[^\W_]+")
QUERY_WORDS = 32  # a query is words to look for, not a document: a 1 MB query is cut to its first words
INDEXED_CHARS = 200_000  # of each message: enough for any conversation text, bounded for a pasted dump


def search(originals: Sequence[Original], query: str, limit: int = MAX_MATCHES) -> list[Original]:
    """The originals that best match `query`'s words (any of them; bm25 ranks messages holding more of
    the rarer words first), best first. A phrase written exactly also matches: its words are in it."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:QUERY_WORDS]
    if not words or not originals:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.execute("CREATE VIRTUAL TABLE found USING fts5(body, tokenize = 'porter unicode61')")
        db.executemany(
            "INSERT INTO found (rowid, body) VALUES (?, ?)",
            ((i, o.message.text[:INDEXED_CHARS]) for i, o in enumerate(originals)),
        )
        rows = db.execute(
            "SELECT rowid FROM found WHERE found MATCH ? ORDER BY bm25(found), rowid LIMIT ?", (match, limit)
        ).fetchall()
    return [originals[row] for (row,) in rows]


def answer_tool_call(call: ToolCall, originals: Sequence[Original]) -> str:
    """The tool result for one call the model made: recall's answer, or an error it can act on.

    Never raises: a call to a tool we did not offer, or arguments that are not what the schema says,
    get a result saying so, so the model can answer anyway."""
    if call.name != "recall":
        return f"error: there is no tool named {call.name!r}; the only tool is recall"
    arguments = untrusted_json.loads(call.arguments or "{}")
    if arguments is None:
        return 'error: recall\'s arguments are not valid JSON (or too large or deep to read); pass {"query": "..."} or {"message": N}'
    if not isinstance(arguments, dict):
        return "error: recall's arguments must be a JSON object"
    query = arguments.get("query")
    message = _integer(arguments.get("message"))
    offset = _integer(arguments.get("offset")) or 0
    return recall(originals, query if isinstance(query, str) else None, message, offset)


def _integer(value: object) -> int | None:
    """A number the model sent as a number or as digits ("12"); anything else is no number."""
    return untrusted_json.integer(value)


def _part(original: Original, offset: int) -> str:
    text = original.message.text
    part = text[offset : offset + RECALL_CHARS]
    head = f"[message {original.number}, {original.message.role}, characters {offset}..{offset + len(part)} of {len(text)}]"
    rest = offset + len(part)
    tail = f"\n(continues: call recall with message={original.number} and offset={rest})" if rest < len(text) else ""
    return f"{head}\n{part}{tail}"


def supports_recall(target: ModelTarget) -> bool:
    """Whether `target` may be offered the tool: litellm says it calls functions; never the local model."""
    if target.is_local:
        return False
    from .lazy import load_litellm

    try:
        return bool(load_litellm().supports_function_calling(model=target.litellm_model))
    except Exception:
        return False
