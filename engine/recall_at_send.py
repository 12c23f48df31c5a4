"""Recall at every send (docs/design.md §14): before a request goes, the words of the new message (and of
the exchange before it) are searched for in what the context no longer holds verbatim, and the best
passages go into the request, word for word, within a budget.

Where they go: a `user` message holding the passages (recall_passages.block) and a short `assistant`
acknowledgement, right before the current turn's user message. Everything before them (system prompts,
snapshot and its acknowledgement, kept turns) is the context exactly as it would be sent without recall,
so the stable prefix a provider caches, and the local model has read ahead, does not change between sends;
roles still alternate (the pair sits where an assistant or tool message ends the previous turn); the
current message is untouched. Nothing is stored in the transcript: the pair exists only in the request,
and what was recalled is stored beside the user message (store/recall_rows.py) for the faces to show.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from .attachments import said
from .context import Usage, sendable
from .messages import Message
from .recall import Original
from .recall_index import Query, RecallIndex, query_for
from .recall_passages import ACKNOWLEDGEMENT, CountText, block, choose
from .recalled import Recalled, stored_recalls
from .store import recall_rows

if TYPE_CHECKING:
    from .context import Context
    from .providers.target import ModelTarget
    from .store import StoredMessage

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
    """Recall at every send for one conversation: whether it is on, its index (fed as the conversation
    grows, shared with the `recall` tool), and what was recalled for each prompt (stored with it)."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.on = context.settings.fold.auto_recall
        """`[fold] auto_recall`; /recall on|off for the session (`Session.recall_at_send`)."""
        self.index = RecallIndex()

    def synced(self) -> RecallIndex:
        """The index, holding every sendable message (all of them: a word's rarity is the conversation's)."""
        self.index.sync(numbered(self.context.transcript(), ())[0])
        return self.index

    def for_request(
        self,
        target: ModelTarget,
        transcript: Sequence[StoredMessage],
        plain: Sequence[Message],
        room: int,
        count_text: CountText,
        replaced: Collection[int] = (),
    ) -> Recalled | None:
        """The passages for the request whose context is `plain` (built from `transcript`): within `[fold]
        recall_budget` and the `room` the window has left after the context and the reply's reserve. The
        `replaced` messages (the replies a regenerate replaces) are never recalled into it."""
        budget = min(self.context.settings.fold.recall_at(target.window, target.backend.small_recall_budget), room)
        if not self.on or budget <= 0:
            return None
        texts, originals = numbered(transcript, plain, replaced)
        self.index.sync(texts)
        return find_passages(self.index, originals, plain, budget, count_text)

    def remember(self, prompt_id: int, recalled: Recalled) -> None:
        recall_rows.set_recall(self.context.store, prompt_id, recalled.to_json())

    def stored(self) -> dict[int, Recalled]:
        """What was recalled for each of the conversation's prompts (message id -> passages)."""
        if self.context.conversation_id is None:
            return {}
        return stored_recalls(self.context.store, self.context.conversation_id)

    def latest(self) -> Recalled | None:
        """What was recalled for the conversation's latest prompt, if anything."""
        prompt = self.context.last_prompt()
        if prompt is None:
            return None
        raw = recall_rows.recall_of(self.context.store, prompt.id)  # one row: the gauge asks at every refresh
        return None if raw is None else Recalled.from_json(raw)

    def counted(self, usage: Usage) -> Usage:
        """`usage` with what recall added to the request for the latest prompt."""
        recalled = self.latest()
        return usage if recalled is None else dataclasses.replace(usage, recalled=recalled.tokens)

    def close(self) -> None:
        self.index.close()


def numbered(
    transcript: Sequence[StoredMessage], context: Sequence[Message], replaced: Collection[int] = ()
) -> tuple[list[tuple[int, str]], list[Original]]:
    """In one pass over `transcript` (at 10,000 messages every pass is milliseconds of a send): each sendable
    message's number and text (what the index holds), and those of them `context` does not send word for
    word and the user did not replace, with when they were said (what may be recalled; `recall.recallable`)."""
    sent = {m.key: m.text for m in context if m.key is not None}
    texts: list[tuple[int, str]] = []
    originals: list[Original] = []
    for number, stored in enumerate(transcript, start=1):
        if sendable(stored):
            message = stored.message
            texts.append((number, message.text))
            # a reply being regenerated, a replaced one, an edited prompt: left out on purpose, never recalled
            unsent = message.key is None or sent.get(message.key) != message.text
            if unsent and stored.superseded_by is None and stored.id not in replaced:
                originals.append(Original(number, message, stored.created_at))
    return texts, originals


def find_passages(
    index: RecallIndex, originals: Sequence[Original], context: Sequence[Message], budget: int, count_text: CountText
) -> Recalled | None:
    """The passages of `originals` (what `context` lacks verbatim, found in `index`) that the context's new
    message is about, within `budget` tokens; None when nothing scores."""
    query = query_of(context)
    if query is None or not originals:
        return None
    held = "\n".join(m.text for m in context)  # what the snapshot quotes, or a merged message holds
    return choose({o.number: o for o in originals}, index, query, budget, count_text, held)


def with_recalled(context: Sequence[Message], recalled: Recalled) -> list[Message]:
    """`context` with the recall pair right before its current user message (see the module docstring)."""
    at = current_prompt_at(context)
    if at is None:
        return list(context)
    while at > 0 and context[at - 1].role == "user" and not context[at - 1].is_snapshot:
        at -= 1  # prompts sent before without a reply: the pair goes before all of them, roles alternate
    return [*context[:at], *recall_pair(recalled), *context[at:]]


def recall_pair(recalled: Recalled) -> list[Message]:
    """The two messages that carry `recalled` in a request: the passages, and the acknowledgement."""
    return [Message.user(block(recalled.passages)), Message.assistant(ACKNOWLEDGEMENT)]
