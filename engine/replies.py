"""A conversation's replies: asked for with its context, streamed, saved as they arrive, with the recall
rounds the model takes (the `recall` tool gets folded originals back).

Saving rules (docs/design.md §9): the user message is committed before the request; the reply row is created
`streaming` and its text saved at most every `SAVE_INTERVAL` seconds; it ends `complete`,
`interrupted` (cancelled or the process died) or `error` (with the partial text, if any). Every write and
count runs off the event loop (a thread), so a face's loop never waits for the disk or the local model.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

from .context import Context
from .events import STOPPED, PassagesRecalled, ToolCalling, ToolCallsAnswered, ToolEvent
from .messages import Message
from .providers.adapt import images_left_out
from .providers.backend import Backend
from .providers.cache_marks import marked, needs_marks, stable_points
from .providers.events import Failed, Finished, Notice, ProviderEvent, TextDelta, Waiting
from .providers.stream import stream_reply
from .providers.target import ModelTarget
from .recall import RECALL_TOOL, Original, answer_within, recall, supports_recall
from .recall_at_send import SendRecall, numbered, recall_pair, with_recalled
from .recalled import Recalled
from .replies_cut import cut_mark
from .store.usage_rows import UsageTotals, set_usage, totals

SAVE_INTERVAL = 0.3
MAX_TOOL_ROUNDS = 3
"""Recall rounds one reply may take; the request after the last offers no tools, so the model answers."""
NOT_OFFERED = (
    f"error: not run: no tool is offered for this request (recall is offered only while something is folded "
    f"or pruned, at most {MAX_TOOL_ROUNDS} rounds per reply); answer with what you have"
)

KEPT_CALLING = (
    "the model called a tool again instead of answering, after being told no tool is offered; "
    "/retry asks again, /model picks another model"
)

ReplyEvent = ProviderEvent | ToolEvent


@dataclass(frozen=True)
class _Request:
    """One request of a reply: what it offers and sends, counted once."""

    tools: list[dict[str, Any]] | None
    context: list[Message]
    messages: list[dict[str, Any]]  # the context in the wire format
    tokens: int
    recalled: Recalled | None = None
    """The passages automatic recall put in (recall_at_send.py), found on a reply's first request and
    sent again unchanged with its tool rounds."""
    prompt_id: int | None = None
    """The stored user message the request answers (what the recall is stored with)."""


class Replies:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.store = context.store
        self.registry = context.registry
        self.settings = context.settings
        self.reply_id: int | None = None
        """The stored id of the latest reply `reply` started (a face shows it before it has one)."""
        self._calls_tools: dict[tuple[str, Backend], bool] = {}
        self.at_send = SendRecall(context)
        """Recall at every send (recall_at_send.py): on or off, the index (the `recall` tool's too), what
        was recalled for each prompt."""
        self.read_estimate: Callable[[list[dict[str, Any]]], str | None] | None = None
        """Set by the session for the local model: given a request's messages, what to say before a long
        read of the context (the server reads what it has not read yet before its first word), or None."""

    # -- replying ---------------------------------------------------------------------------------
    def add_user_message(self, text: str) -> int:
        return self.store.append(self.context.stored_id(), Message.user(text))

    def set_system_prompt(self, text: str) -> int:
        return self.store.append(self.context.stored_id(), Message.system(text))

    def replies_to_last_turn(self) -> list[int]:
        """Ids of the replies after the last user message (what a regenerate replaces)."""
        live = [s for s in self.context.transcript() if s.superseded_by is None and s.message.role != "system"]
        ids: list[int] = []
        for stored in reversed(live):
            if stored.message.role == "user":
                break
            ids.append(stored.id)
        return ids

    async def reply(self, target: ModelTarget, *, regenerate: bool = False) -> AsyncIterator[ReplyEvent]:
        """Stream a reply to the current context, saving it as it arrives. Cancel-safe.

        With `regenerate`, the replies to the last user message are left out of the context and, once
        the new reply exists, marked as superseded by it (they stay in the transcript).

        Tool rounds (for recall): when a request offers tools (`offered_tools`) and the reply calls them,
        the call message is stored, each call answered here (`recall` runs locally) and stored as a tool
        message, and the model is asked again with the results in its context; at most
        `MAX_TOOL_ROUNDS` rounds, and the request after the last offers no tools. The caller sees
        `ToolCalling` and `ToolCallsAnswered` for each round, and one final `Finished` or `Failed`.
        A call made when no tool was offered is answered with an error and the model asked once more;
        calling again then ends the reply as `Failed` with the reason, never as a silent empty answer.
        Every request is fitted to the window (see `_request` and `_answer_tools`).
        """
        stale = self.replies_to_last_turn() if regenerate else []
        rounds: list[int] = []  # transcript ids of this reply's tool calls and results
        offer = True
        recalled: Recalled | None = None
        for round_number in range(MAX_TOOL_ROUNDS + 2):
            offer = offer and round_number < MAX_TOOL_ROUNDS
            request, told = await asyncio.to_thread(
                self._prepared, target, stale, offer, rounds, round_number == 0, recalled
            )
            recalled = request.recalled
            if request.tokens > target.window:  # the provider would refuse it, with a less helpful error
                self.reply_id = None
                yield Failed(over_window(target, request.tokens), None)
                return
            for event in told:
                yield event
            called: list[Finished] = []
            async for event in self._reply_once(target, stale, request, called):
                yield event
            if not called:
                return
            stale = []
            yield ToolCalling(called[0].message.tool_calls)
            # off the event loop: the UI shows "recalling …" meanwhile; a cancel still lets the results land
            last_chance = request.tools is None and not offer  # told there are no tools, it called one anyway
            answered = await asyncio.to_thread(
                self._answer_tools, target, called[0].message, request.tools is not None, request.tokens,
                not last_chance,
            )  # fmt: skip
            rounds += [answered.call_id, *(row for row, _ in answered.results)]
            offer = offer and answered.room_left
            yield answered
            if not answered.more:
                yield Failed(KEPT_CALLING, None)
                return

    def _prepared(
        self,
        target: ModelTarget,
        stale: list[int],
        offer_tools: bool,
        rounds: list[int],
        first: bool,
        recalled: Recalled | None,
    ) -> tuple[_Request, list[ReplyEvent]]:
        """A request (`_request`) and, for a reply's first, what the user is told before it is sent
        (`_before_sending`: the local model's read estimate counts), in one trip off the event loop."""
        request = self._request(target, stale, offer_tools, rounds, first, recalled)
        if not first or request.tokens > target.window:
            return request, []
        return request, self._before_sending(target, request)

    def _request(
        self,
        target: ModelTarget,
        stale: list[int],
        offer_tools: bool,
        rounds: list[int],
        find_recall: bool = False,
        recalled: Recalled | None = None,
    ) -> _Request:
        """The tools a request offers and the context it sends. Run off the event loop (the UI's), in one
        trip: the context reads the whole transcript back (~0.1 s at 2,000 messages).

        With `find_recall` (a reply's first request) automatic recall looks for passages the new message is
        about and stores what it found with that message; later requests of the reply send `recalled` again.

        A request after tool rounds is counted like the first: if the rounds' calls and results no longer
        fit the window with the reply's reserve (answers are sized to fit, but a call message itself may
        be huge), the rounds are left out of what is sent (they stay in the transcript) and no tool is
        offered, so the model answers from the context it had."""
        tools = self.offered_tools(target) if offer_tools else None
        counter = self.registry.counter(target)
        transcript = self.context.transcript()
        plain = self.context.messages(transcript, frozenset(stale), target)
        context = self.context.adapted(target, plain, transcript)
        tokens = counter.count(context)  # counted once: every check below reads this
        prompt_id = next((m.key for m in reversed(plain) if m.role == "user" and not m.is_snapshot), None)
        if find_recall:
            room = self._room(target, tokens)
            recalled = self.at_send.for_request(target, transcript, plain, room, counter.count_text, stale)
            if recalled is not None and prompt_id is not None:
                self.at_send.remember(prompt_id, recalled)
        pair = 0 if recalled is None else sum(map(counter.count_message, recall_pair(recalled)))
        if rounds and self._room(target, tokens + pair) < 0:  # the recalled passages are sent with each round
            context = self.context.adapted_context(target, exclude=frozenset([*stale, *rounds]))
            tokens, tools = counter.count(context), None
        # marks for providers that cache only what is marked, before the recalled passages that vary
        prompt_at = next((i for i, m in enumerate(context) if prompt_id is not None and m.key == prompt_id), None)
        points = stable_points(context, prompt_at) if needs_marks(target) else []
        if recalled is not None:
            context, tokens = with_recalled(context, recalled), tokens + pair  # the rest is counted already
        sent = marked([m.to_dict() for m in context], points)
        return _Request(tools, context, sent, tokens, recalled, prompt_id)

    def _before_sending(self, target: ModelTarget, request: _Request) -> list[ReplyEvent]:
        """What the user is told before the first request of a reply: what was recalled, images left out,
        a long read ahead."""
        told: list[ReplyEvent] = []
        if request.recalled is not None and request.prompt_id is not None:
            told.append(PassagesRecalled(request.prompt_id, request.recalled))
        if any(left_out := images_left_out(request.context)):
            told.append(Notice(self._images_notice(target, *left_out)))
        if self.read_estimate is not None and (reading := self.read_estimate(request.messages)):
            told.append(Waiting(reading))
        return told

    def _images_notice(self, target: ModelTarget, linked: int, unseen: int) -> str:
        """What the user is told about the images `adapt` left out of a request to `target`."""
        reasons = []
        if linked:
            reasons.append(
                f"{linked} given as a web address ({self.context.rules(target).provider} takes only images sent "
                "inline, and Foldchat fetches nothing)"
            )
        if unseen:
            reasons.append(f"{unseen} that {target.name} cannot see (it takes no images)")
        total = linked + unseen
        return f"{total} image{'s' * (total != 1)} left out of this request: " + "; ".join(reasons)

    def _room(self, target: ModelTarget, tokens: int) -> int:
        """Tokens the window has left after a context of `tokens` and the reply's reserve (negative: over)."""
        return target.window - self.registry.reserved_output(target) - tokens

    async def _reply_once(
        self,
        target: ModelTarget,
        stale: list[int],
        request: _Request,
        called: list[Finished],
    ) -> AsyncIterator[ProviderEvent]:
        """One request and its streamed reply, saved as it arrives; a finished reply that calls tools is put
        in `called` instead of being yielded (the round goes on)."""
        row = self.reply_id = await asyncio.to_thread(self._start_row, target, stale)
        text: list[str] = []
        last_save = time.monotonic()
        ended = False
        try:
            async for event in stream_reply(
                within_window(target, request.tokens),
                request.messages,
                timeout=self.settings.request_timeout,
                max_retries=self.settings.max_retries,
                deadline=self.settings.request_deadline,
                tools=request.tools,
            ):
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    if time.monotonic() - last_save >= SAVE_INTERVAL:
                        await asyncio.to_thread(self.store.update_streaming, row, Message.assistant("".join(text)))
                        last_save = time.monotonic()
                elif isinstance(event, Finished | Failed):
                    # saved before the caller sees it: a caller that stops reading loses nothing
                    await asyncio.to_thread(self._save_final, row, target, event, "".join(text), request.tokens)
                    ended = True
                    if isinstance(event, Finished) and event.message.tool_calls:
                        called.append(event)
                        continue
                yield event
        finally:
            if not ended:  # cancelled (Esc, Ctrl-C) or the consumer went away mid-stream: the thread writes
                # it even if this wait is cancelled again (a quit), and the loop never waits for the disk
                partial = Message.assistant("".join(text))
                await asyncio.shield(asyncio.to_thread(self.store.finish, row, partial, "interrupted", error=STOPPED))

    def _start_row(self, target: ModelTarget, stale: list[int]) -> int:
        """The reply's row, created `streaming`, with the replies it replaces marked superseded by it."""
        row = self.store.append(self.context.stored_id(), Message.assistant(""), status="streaming", model=target.name)
        if stale:
            self.store.supersede(stale, row)
        return row

    # -- recall: the model gets folded originals back ---------------------------------------------
    def offered_tools(self, target: ModelTarget) -> list[dict[str, Any]] | None:
        """The tools a request to `target` offers: `recall`, when `fold.recall` is on, litellm says the model
        calls functions (never the local model; unknown models get none) and a fold is active."""
        if not self.settings.fold.recall or self.context.active_fold() is None:
            return None
        kind = (target.litellm_model, target.backend)
        if kind not in self._calls_tools:
            self._calls_tools[kind] = supports_recall(target)
        if not self._calls_tools[kind]:
            return None
        # an active fold always replaced or pruned something, so there is something to recall: no need to
        # rebuild the context on every request to find out (0.26 s at 1M tokens)
        return [RECALL_TOOL]

    def recallable(self, target: ModelTarget | None = None) -> list[Original]:
        """Transcript messages, numbered as the snapshot and stubs number them, that the context does not
        send verbatim (folded, pruned or condensed); replaced or failed messages are not recalled."""
        transcript = self.context.transcript()
        return numbered(transcript, self.context.messages(transcript, target=target))[1]

    def recall(
        self, target: ModelTarget | None = None, query: str | None = None, message: int | None = None, offset: int = 0
    ) -> str:
        """What the `recall` tool answers for these arguments (bounded; see `recall.recall`)."""
        return recall(self.recallable(target), query, message, offset, index=self.at_send.synced())

    def _answer_tools(
        self, target: ModelTarget, call: Message, offered: bool, context_tokens: int, more: bool = True
    ) -> ToolCallsAnswered:
        """Answer and store every call of `call` (the stored reply `reply_id`), one tool message each, in order,
        so the pair is whole (docs/design.md §3.3). Calls made when no tool was offered get an error result. The
        answers together fit what the window has left after the context, the call and the reply's reserve."""
        counter = self.registry.counter(target)
        framing = counter.count([call, *(Message.tool("x", "") for _ in call.tool_calls)])
        room = self._room(target, context_tokens + framing)
        if offered:
            texts, room_left = answer_within(
                call.tool_calls, self.recallable(target), room, counter.count_text, self.at_send.synced()
            )
        else:
            texts, room_left = [NOT_OFFERED] * len(call.tool_calls), False
        conversation = self.context.stored_id()
        results: list[tuple[int, Message]] = []
        for tool_call, text in zip(call.tool_calls, texts, strict=True):
            result = Message.tool(tool_call.id, text, name=tool_call.name)
            results.append((self.store.append(conversation, result, model=target.name), result))
        assert self.reply_id is not None
        return ToolCallsAnswered(self.reply_id, call, tuple(results), more=more, room_left=room_left)

    def _save_final(
        self, row: int, target: ModelTarget, event: Finished | Failed, text: str, prompt_tokens: int
    ) -> None:
        if isinstance(event, Finished):
            usage = event.usage
            counter = self.registry.counter(target)
            tokens = usage.completion_tokens if usage else counter.count_message(event.message)
            # providers that report no usage are priced from our own counts
            cost = usage.cost if usage else target.cost(prompt_tokens, tokens)
            # a reply the output cap ended is kept marked, so the mark is there after a restart and in exports
            cut = cut_mark(tokens) if event.finish_reason == "length" else None
            self.store.finish(row, event.message, "complete", tokens=tokens, cost=cost, error=cut)
            if usage is not None:  # cached reads, cache writes and the cost without the cache, kept with it
                set_usage(self.store, row, usage)
        else:
            self.store.finish(row, event.partial or Message.assistant(text), "error", error=event.error)

    def total_cost(self) -> float:
        return (
            0.0 if self.context.conversation_id is None else self.store.conversation_cost(self.context.conversation_id)
        )

    def usage_totals(self) -> UsageTotals:
        """The conversation's replies summed: cost, and how much of the input the providers read cached."""
        conversation = self.context.conversation_id
        return UsageTotals() if conversation is None else totals(self.store, conversation)


def over_window(target: ModelTarget, tokens: int) -> str:
    """Why a context of `tokens` is not sent to `target`: a context is never sent over the window,
    whatever folded it or did not."""
    return (
        f"not sent: the context is {tokens:,} tokens, over {target.name}'s {target.window:,}-token window; "
        "/resummarize folds it (or foldchat compress --force)"
    )


def within_window(target: ModelTarget, prompt_tokens: int) -> ModelTarget:
    """`target` asking for no more reply tokens than its window leaves after the prompt (an alias
    with 16,384 output tokens on an 8,192-token window asked for all of them)."""
    if target.max_output_tokens is None:
        return target
    room = target.window - prompt_tokens
    return target if target.max_output_tokens <= room else replace(target, max_output_tokens=max(1, room))
