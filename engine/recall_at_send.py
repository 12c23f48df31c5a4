"""Recall at every send (docs/design.md §13): before a request goes, the words of the new message (and of
the exchange before it) are searched for in what the context no longer holds verbatim, and the best
passages go into the request, word for word, within a budget.

Where they go: a `user` message holding the passages (recall_passages.block) and a short `assistant`
acknowledgement, right before the current turn's user message. Everything before them (system prompts,
snapshot and its acknowledgement, kept turns) is the context exactly as it would be sent without recall,
so the stable prefix a provider caches, and the local model has read ahead, does not change between sends;
roles still alternate (the pair sits where an assistant or tool message ends the previous turn); the
current message is untouched. Nothing is stored in the transcript: the pair exists only in the request,
and what was recalled is stored beside the user message (`Store.set_recall`) for the faces to show.
"""

from __future__ import annotations

from collections.abc import Sequence

from .attachments import said
from .messages import Message
from .recall import Original
from .recall_index import Query, RecallIndex, query_for
from .recall_passages import ACKNOWLEDGEMENT, CountText, Recalled, Source, block, choose

BEFORE_CHARS = 2_000  # of the exchange before the new message: its subject, not its whole text


def current_prompt_at(context: Sequence[Message]) -> int | None:
    """Index of the current turn's user message (the last user message that is not the snapshot)."""
    for index in range(len(context) - 1, -1, -1):
        if context[index].role == "user" and not context[index].is_snapshot:
            return index
    return None


def query_of(context: Sequence[Message]) -> Query | None:
    """What the new message and the exchange before it are about (None when there is no new message)."""
    at = current_prompt_at(context)
    if at is None:
        return None
    before: list[str] = []
    for message in reversed(context[:at]):
        if message.is_snapshot or message.role == "system":
            break
        before.append(said(message) if message.role == "user" else message.text)
        if message.role == "user":
            break
    return query_for(said(context[at]), "\n".join(reversed(before))[-BEFORE_CHARS:])


class SendRecall:
    """Recall at every send for one conversation: its index, fed as the conversation grows."""

    def __init__(self) -> None:
        self.index = RecallIndex()

    def sync(self, numbered: Sequence[tuple[int, Message]]) -> None:
        """Index the conversation's messages (all of them: a word's rarity is the conversation's)."""
        self.index.sync((n, m.text) for n, m in numbered)

    def passages(
        self, originals: Sequence[Original], context: Sequence[Message], budget: int, count_text: CountText
    ) -> Recalled | None:
        """The passages of `originals` (what the context lacks verbatim) the context's new message is about,
        within `budget` tokens; None when nothing scores."""
        query = query_of(context)
        if query is None or not originals:
            return None
        sources = [Source(o.number, o.message.role, o.message.text, o.at) for o in originals]
        held = "\n".join(m.text for m in context)  # what the snapshot quotes is not sent twice
        return choose(sources, self.index, query, budget, count_text, held)

    def close(self) -> None:
        self.index.close()


def with_recalled(context: Sequence[Message], recalled: Recalled) -> list[Message]:
    """`context` with the recall pair right before its current user message (see the module docstring)."""
    at = current_prompt_at(context)
    if at is None:
        return list(context)
    while at > 0 and context[at - 1].role == "user" and not context[at - 1].is_snapshot:
        at -= 1  # prompts sent before without a reply: the pair goes before all of them, roles alternate
    pair = [Message.user(block(recalled.passages)), Message.assistant(ACKNOWLEDGEMENT)]
    return [*context[:at], *pair, *context[at:]]
