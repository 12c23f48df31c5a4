"""Recall: the verbatim originals behind a fold, by text or by message number.

A fold changes what is sent, never what is kept; recall is how the model (through a `recall` tool, for
models that support tool calls) or the user gets a folded or pruned original back word for word.
Only messages the context no longer holds verbatim are searched (folded into the snapshot, pruned to a
stub or condensed), so recall never repeats what the model already sees. A text query is ranked
full-text search (recall_index.py, the ranking automatic recall uses): the words a model asks with
("charity race awareness") find the message that says them in other forms ("the charity race raised
awareness"); the best three come back, with the numbers of the next best. Answers are bounded to
`RECALL_CHARS` characters and end with how to ask for the rest. Message numbers are the
conversation's own (1-based transcript positions, the numbers snapshots and stubs name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import untrusted_json
from .attachments import names
from .messages import Message, ToolCall
from .recall_index import RecallIndex, query_for

if TYPE_CHECKING:  # a signature's only: `foldchat show` reads stored recalls without the provider modules
    from .providers.target import ModelTarget

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
    at: float | None = None
    """When it was said (the transcript's time), for the day a recalled passage names."""


def recallable(
    transcript: Sequence[tuple[int, Message]], context: Sequence[Message], dates: Mapping[int, float] | None = None
) -> list[Original]:
    """Transcript messages (numbered) that the context does not send word for word; `dates`: when each
    number was said."""
    sent = {m.key: m.text for m in context if m.key is not None}
    when = dates or {}
    return [Original(n, m, when.get(n)) for n, m in transcript if m.key is None or sent.get(m.key) != m.text]


def recall(
    originals: Sequence[Original],
    query: str | None = None,
    message: int | None = None,
    offset: int = 0,
    limit: int = RECALL_CHARS,
    index: RecallIndex | None = None,
) -> str:
    """The answer to one `recall` call: a message's verbatim text (a part of at most `limit` characters),
    or the best matches (their first `limit` characters together)."""
    if message is not None:
        found = next((o for o in originals if o.number == message), None)
        if found is None:
            numbers = ", ".join(str(o.number) for o in originals[:MAX_MATCHES]) or "none"
            return f"message {message} is not folded or pruned (recallable: {numbers})"
        return _part(found, max(0, offset), limit)
    if not query or not query.strip():
        return "recall needs a query or a message number"
    matches = search(originals, query, MAX_MATCHES, index)
    if not matches:
        return f"no folded or pruned message matches {query.strip()[:200]!r}"
    best, others = matches[:TOOL_HITS], ", ".join(str(o.number) for o in matches[TOOL_HITS:])
    also = f"\n(next best matches: messages {others}; call recall with message=N)" if others else ""
    return "\n\n".join(_part(o, 0, max(1, limit // len(best))) for o in best) + also


TOOL_HITS = 3  # a text query answers with its best three matches in full (top 1 held the evidence for 0.24)


def search(
    originals: Sequence[Original], query: str, limit: int = MAX_MATCHES, index: RecallIndex | None = None
) -> list[Original]:
    """The originals that best match `query`'s words, best first: an attachment named exactly first, then
    the ranking automatic recall uses (recall_index.py: bm25 over any of the words and their stems, names
    and numbers counted again, the newer first on a tie). `index`: the conversation's, when it has one."""
    if not query.strip() or not originals:
        return []
    named = [o for o in reversed(originals) if query.strip() in names([o.message])]  # an attachment, by its name
    by_number = {o.number: o for o in originals}
    own = index is None
    index = index or RecallIndex()
    try:
        if own:
            index.sync((o.number, o.message.text) for o in originals)
        ranked = [by_number[n] for n, _ in index.ranked(query_for(query), by_number.keys(), limit)]
    finally:
        if own:
            index.close()
    return [*named, *(o for o in ranked if o not in named)][:limit]


def answer_tool_call(
    call: ToolCall, originals: Sequence[Original], limit: int = RECALL_CHARS, index: RecallIndex | None = None
) -> str:
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
    return recall(originals, query if isinstance(query, str) else None, message, offset, limit, index)


MAX_CALLS_PER_ROUND = 8  # a model asking for 200 recalls at once gets the first few answered
MIN_ANSWER_TOKENS = 64  # below this a recalled part is useless: the model is told there is no room
NO_ROOM = "error: not run: the context window has no room left for recalled text; answer with what you have"
TOO_MANY = f"error: not run: at most {MAX_CALLS_PER_ROUND} recall calls are answered per round"


def answer_within(
    calls: Sequence[ToolCall],
    originals: Sequence[Original],
    room: int,
    count_text: Callable[[str], int],
    index: RecallIndex | None = None,
) -> tuple[list[str], bool]:
    """One answer per call whose texts together take at most `room` tokens (of the window, after the prompt
    and the reply's reserve), and whether any room is left for another round.

    Each answered call gets an equal share; an answer over its share is asked again with fewer characters
    (the part ends with how to fetch the rest), so a round never pushes the next request over the window.
    """
    answered = calls[:MAX_CALLS_PER_ROUND]
    refusals = [TOO_MANY] * (len(calls) - len(answered))
    room -= sum(count_text(text) for text in refusals)
    share = room // max(1, len(answered))
    if share < MIN_ANSWER_TOKENS:
        return [NO_ROOM] * len(answered) + refusals, False
    answers = [_answer_in(call, originals, share, count_text, index) for call in answered]
    left = room - sum(count_text(text) for text in answers)
    return answers + refusals, left >= MIN_ANSWER_TOKENS


def _answer_in(
    call: ToolCall,
    originals: Sequence[Original],
    share: int,
    count_text: Callable[[str], int],
    index: RecallIndex | None = None,
) -> str:
    limit = RECALL_CHARS
    answer = answer_tool_call(call, originals, limit, index)
    while (tokens := count_text(answer)) > share:
        if limit <= 50:
            return NO_ROOM
        limit = max(50, int(limit * share / tokens * 0.9))
        answer = answer_tool_call(call, originals, limit, index)
    return answer


def _integer(value: object) -> int | None:
    """A number the model sent as a number or as digits ("12"); anything else is no number."""
    return untrusted_json.integer(value)


def _part(original: Original, offset: int, limit: int = RECALL_CHARS) -> str:
    text = original.message.text
    part = text[offset : offset + limit]
    head = f"[message {original.number}, {original.message.role}, characters {offset}..{offset + len(part)} of {len(text)}]"
    rest = offset + len(part)
    tail = f"\n(continues: call recall with message={original.number} and offset={rest})" if rest < len(text) else ""
    return f"{head}\n{part}{tail}"


def supports_recall(target: ModelTarget) -> bool:
    """Whether `target` may be offered the tool: litellm says it calls functions; never the local model."""
    if not target.backend.may_call_tools:
        return False
    from .lazy import load_litellm

    try:
        return bool(load_litellm().supports_function_calling(model=target.litellm_model))
    except Exception:
        return False
