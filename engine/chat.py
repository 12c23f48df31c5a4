"""A conversation at work: transcript in, context out, folds applied, replies streamed and saved.

`ChatSession` is what `foldchat ask` and the TUI share. The transcript (the store) is never edited by
folding; the context is rebuilt from it plus the active fold every time it is needed.

Saving rules (docs/design.md §9): the user message is committed before the request; the reply row is created
`streaming` and its text saved at most every `SAVE_INTERVAL` seconds; it ends `complete`,
`interrupted` (cancelled or the process died) or `error` (with the partial text, if any).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import snapshot as snap
from .alternation import current_turn_start, repair
from .config import Settings
from .errors import FoldFailed
from .events import EventSink, ToolCalling, ToolCallsAnswered, ToolEvent, ignore_events
from .fold.condense import condense_oversized
from .fold.layout import FoldLayout, NewFold, covered_messages, new_fold, transcript_numbers
from .fold.pipeline import FoldRequest, FoldResult, fold_context
from .fold.report import FoldReport
from .invariants import violations
from .messages import Message
from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from .providers.adapt import TargetRules, adapt, images_left_out, rules_for_target
from .providers.events import Failed, Finished, Notice, ProviderEvent, TextDelta, Waiting
from .providers.registry import ModelRegistry
from .providers.stream import missing_key, stream_reply
from .providers.target import ModelTarget
from .recall import RECALL_TOOL, Original, answer_within, recall, recallable, supports_recall
from .snapshot import Snapshot, snapshot_text
from .store import Store, StoredFold, StoredMessage
from .summarizer_model import small_model
from .summarizers import RulesSummarizer, Summarizer
from .summarizers.llm import llm_with_fallback

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


@dataclass(frozen=True)
class Usage:
    """What the gauge shows: context tokens against the window, the trigger and the target."""

    tokens: int
    window: int
    reserved: int
    trigger: int
    target: int

    @property
    def used(self) -> int:
        return self.tokens + self.reserved


@dataclass(frozen=True)
class FoldPlan:
    """A computed fold not yet stored: `report` (what it would do), the snapshot by section in `result`.

    `apply_fold` stores exactly this result (no second summarizer call), only if the conversation has
    not changed since (same messages, same active fold): the version-checked swap of STYLE.md."""

    report: FoldReport
    result: FoldResult
    previous: StoredFold | None
    transcript: tuple[StoredMessage, ...]

    @property
    def snapshot(self) -> Snapshot | None:
        return self.result.snapshot


class ChatSession:
    def __init__(self, store: Store, registry: ModelRegistry, settings: Settings, conversation_id: int | None) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings
        self.conversation_id = conversation_id
        """None for a new conversation not stored yet: it reads as empty until a write creates it."""
        self.reply_id: int | None = None
        """The stored id of the latest reply `reply` started (a face shows it before it has one)."""
        self._rules_cache: dict[str, TargetRules] = {}
        self._calls_tools: dict[tuple[str, bool], bool] = {}
        self.read_estimate: Callable[[list[dict[str, Any]]], str | None] | None = None
        """Set by the session for the local model: given a request's messages, what to say before a long
        read of the context (the server reads what it has not read yet before its first word), or None."""
        self._origin_cache: dict[str, str | None] = {}

    # -- the two histories ------------------------------------------------------------------------
    def transcript(self) -> list[StoredMessage]:
        return [] if self.conversation_id is None else self.store.messages(self.conversation_id)

    def active_fold(self) -> StoredFold | None:
        return None if self.conversation_id is None else self.store.active_fold(self.conversation_id)

    def stored_id(self) -> int:
        """The conversation's id, storing it first if it is new (the first write does)."""
        if self.conversation_id is None:
            self.conversation_id = self.store.create_conversation()
        return self.conversation_id

    def context(
        self,
        transcript: Sequence[StoredMessage] | None = None,
        exclude: frozenset[int] = frozenset(),
        target: ModelTarget | None = None,
    ) -> list[Message]:
        """What the next call sends: system prompts + snapshot + acknowledgement + messages after the fold.

        With `target`, oversized messages kept after a fold are condensed again exactly as the fold did,
        so the rebuilt context is the one the fold reported.
        """
        stored = list(transcript) if transcript is not None else self.transcript()
        messages = [s.message for s in stored if _sendable(s) and s.id not in exclude]
        return self._with_fold(messages, self.active_fold(), target)

    def _with_fold(
        self, messages: list[Message], fold: StoredFold | NewFold | None, target: ModelTarget | None
    ) -> list[Message]:
        """`messages` (the sendable transcript) as `fold` sends them."""
        if fold is None:
            return repair(messages).messages
        layout = FoldLayout.of(fold)
        messages = [layout.apply(m) for m in messages]
        if not layout.has_snapshot:  # a fold that only pruned tool outputs
            return repair(messages).messages
        systems = [m for m in messages if m.role == "system"]
        after = [m for m in messages if m.role != "system" and layout.sends(fold, m)]
        if target is not None:
            after = self._condense_kept(after, target)
        bridge = [Message.assistant(snap.ACKNOWLEDGEMENT)] if not after or after[0].role == "user" else []
        # marked as ours (docs/design.md §3.6); no `name` here: that mark is only for plain JSON
        snapshot = Message(role="user", content=snapshot_text(fold), is_snapshot=True)
        return repair([*systems, snapshot, *bridge, *after]).messages

    def originals(self, transcript: Sequence[StoredMessage]) -> list[Message]:
        """The context as if nothing had been folded: what a user-forced re-fold starts from."""
        return repair([s.message for s in transcript if _sendable(s)]).messages

    def _condense_kept(self, kept: list[Message], target: ModelTarget) -> list[Message]:
        threshold = self.settings.fold.message_threshold(target.window)
        return condense_oversized(kept, current_turn_start(kept), self.registry.counter(target), threshold).messages

    def adapted_context(self, target: ModelTarget, exclude: frozenset[int] = frozenset()) -> list[Message]:
        """The context as `target` accepts it (ids, reasoning, images; docs/design.md §8)."""
        transcript = self.transcript()
        context = self.context(transcript, exclude, target)
        producers = {s.id: s.model for s in transcript}
        origins = [self._provider_of(producers.get(m.key) if m.key is not None else None) for m in context]
        adapted, _ = adapt(context, self._rules(target), origins)
        return adapted

    def _rules(self, target: ModelTarget) -> TargetRules:
        rules = self._rules_cache.get(target.litellm_model)
        if rules is None:
            rules = self._rules_cache[target.litellm_model] = rules_for_target(target)
        return rules

    def _provider_of(self, model_name: str | None) -> str | None:
        """The provider that wrote a stored reply (`model` is the name it was sent with)."""
        if model_name is None:
            return None
        if model_name not in self._origin_cache:
            try:
                target = self.registry.resolve(model_name)
                self._origin_cache[model_name] = self._rules(target).provider
            except Exception:  # a model no longer configured: its reasoning is not sent anywhere
                self._origin_cache[model_name] = None
        return self._origin_cache[model_name]

    def usage(
        self, target: ModelTarget, extra_text: str = "", transcript: Sequence[StoredMessage] | None = None
    ) -> Usage:
        counter = self.registry.counter(target)
        tokens = counter.count(self.context(transcript, target=target))
        if extra_text:
            tokens += counter.count_message(Message.user(extra_text))
        policy = self.settings.fold
        return Usage(
            tokens, target.window, self.registry.reserved_output(target), policy.trigger_at(target.window),
            policy.target_at(target.window),
        )  # fmt: skip

    def pinned_texts(self) -> list[str]:
        ids = [] if self.conversation_id is None else self.store.pinned_ids(self.conversation_id)
        return [self.store.message(i).message.text for i in ids]

    # -- folding ----------------------------------------------------------------------------------
    def summarizer(self, target: ModelTarget) -> Summarizer:
        """Per config: rules, an LLM (falling back to rules), or auto: an LLM when a hosted one is usable."""
        return choose_summarizer(self.settings, self.registry, target)

    def fold_history(self, target: ModelTarget, transcript: Sequence[StoredMessage] | None = None) -> FoldHistory:
        fold = self.active_fold()
        if fold is None:
            return FoldHistory()
        stored = self.transcript() if transcript is None else transcript
        since = sum(1 for m in stored if m.created_at > fold.created_at)
        reserved = self.registry.reserved_output(target)
        dropped = fold.tokens_after + reserved < self.settings.fold.reset_at(target.window)
        return FoldHistory(folded=True, messages_since=since, dropped_below_reset=dropped)

    def fold_decision(
        self, target: ModelTarget, trigger: Trigger | None = None, transcript: Sequence[StoredMessage] | None = None
    ) -> tuple[Decision, Usage]:
        """What the fold policy says now, without folding (for `fold.auto = "ask"` and `"off"`, and at the
        trigger for a prepared fold, which passes the `transcript` it read)."""
        stored = self.transcript() if transcript is None else transcript
        usage = self.usage(target, transcript=stored)
        policy = self.settings.fold
        history = None if trigger == Trigger.SWITCH else self.fold_history(target, stored)
        count = sum(1 for m in self.context(stored) if m.role != "system")
        return decide(policy, usage=usage.used, window=target.window, message_count=count, history=history), usage

    def fold(
        self,
        target: ModelTarget,
        *,
        force: bool = False,
        focus: str | None = None,
        trigger: Trigger | None = None,
        on_event: EventSink = ignore_events,
    ) -> FoldReport | None:
        """Apply the fold policy (or fold now with `force`); a fold that happens is stored.

        Returns the report (`compressed` says whether it folded), or None for an empty context.
        """
        plan = self.plan_fold(target, force=force, focus=focus, trigger=trigger, on_event=on_event)
        if plan is None:
            return None
        if not plan.report.compressed:
            return plan.report
        return self._store_fold(plan.result, plan.previous, plan.transcript)

    def plan_fold(
        self,
        target: ModelTarget,
        *,
        force: bool = False,
        focus: str | None = None,
        trigger: Trigger | None = None,
        on_event: EventSink = ignore_events,
        policy: FoldPolicy | None = None,
    ) -> FoldPlan | None:
        """What `fold` would do, computed and not stored (the preview); None for an empty context.

        `policy` replaces the configured one (a pre-fold aims lower: `FoldPolicy.ahead`)."""
        transcript = self.transcript()
        context = self.context(transcript)
        if not context:
            return None
        previous = self.active_fold()
        refold = force and previous is not None and FoldLayout.of(previous).has_snapshot
        request = self._fold_request(target, force, focus, trigger, on_event, transcript)
        if policy is not None:
            request = replace(request, policy=policy)
        if refold and previous is not None:
            # docs/design.md §5: from the original messages, not a summary of the summary
            request = replace(
                request,
                fold_through=previous.last_message_id,
                replaces_tokens=request.counter.count(context),
            )
        result = fold_context(self.originals(transcript) if refold else context, request)
        report = result.report
        if report.compressed and refold and previous is not None and _same_fold(result, previous, context):
            reason = "nothing to change: no message arrived since the last fold and the snapshot would be the same"
            report = replace(report, compressed=False, reason=reason, tokens_after=report.tokens_before)
        return FoldPlan(report, result, previous, tuple(transcript))

    def apply_fold(self, plan: FoldPlan) -> FoldReport | None:
        """Store exactly the previewed fold, if the conversation is still as it was when it was computed."""
        if not plan.report.compressed:
            return plan.report
        active = self.active_fold()
        same_fold = (active.id if active else None) == (plan.previous.id if plan.previous else None)
        if not same_fold or [s.id for s in self.transcript()] != [s.id for s in plan.transcript]:
            raise FoldFailed("the conversation changed since the preview: preview it again")
        return self._store_fold(plan.result, plan.previous, plan.transcript)

    def apply_prepared(
        self,
        plan: FoldPlan,
        target: ModelTarget,
        decision: tuple[Decision, Usage],
        transcript: Sequence[StoredMessage],
    ) -> FoldReport | None:
        """Store a fold computed earlier over the older part of this transcript (a pre-fold, `prefold.py`).

        The messages that arrived since join its verbatim tail. Its snapshot and the tail it chose are
        stored as computed; the counts are redone for the context as it is now (`transcript`, with the
        policy's `decision` and usage on it). None, and nothing stored, when that context would be over
        the target or break an invariant: the caller folds as usual."""
        started = time.perf_counter()
        decided, usage = decision
        result = plan.result
        snapshot = result.snapshot.model_dump() if result.snapshot is not None else None
        record = new_fold(result.messages, result.folded, snapshot, plan.previous)
        if record is None:
            return None
        messages = [s.message for s in transcript if _sendable(s)]
        context = self._with_fold(messages, record, target)
        counter = self.registry.counter(target)
        tokens_after = counter.count(context)
        systems = [m for m in messages if m.role == "system"]
        if tokens_after + usage.reserved > usage.target or violations(context, systems):
            return None
        report = replace(
            result.report,
            tokens_before=usage.tokens,
            tokens_after=tokens_after,
            trigger_tokens=usage.trigger,  # the plan was sized with its own lower numbers: report the policy's
            target_tokens=usage.target,
            kept_messages=len(context),
            trigger=str(decided.trigger or Trigger.AUTO),
            reason=f"{decided.reason}; the fold was prepared in the background",
            duration_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return self._store_fold(replace(result, report=report), plan.previous, transcript)

    def _fold_request(
        self,
        target: ModelTarget,
        force: bool,
        focus: str | None,
        trigger: Trigger | None,
        on_event: EventSink,
        transcript: Sequence[StoredMessage],
    ) -> FoldRequest:
        return FoldRequest(
            counter=self.registry.counter(target),
            window=target.window,
            summarizer=self.summarizer(target),
            policy=self.settings.fold,
            reserved_output=self.registry.reserved_output(target),
            force=force,
            trigger=trigger,
            # a switch re-evaluates at once (docs/design.md §5): the last fold's hysteresis was for another window
            history=None if trigger == Trigger.SWITCH else self.fold_history(target),
            pinned=self.pinned_texts(),
            dropped_rules=[] if self.conversation_id is None else self.store.dropped_rules(self.conversation_id),
            focus=focus,
            on_event=on_event,
            numbers=transcript_numbers([s.id for s in transcript]),
        )

    def _store_fold(
        self, result: FoldResult, previous: StoredFold | None, transcript: Sequence[StoredMessage]
    ) -> FoldReport | None:
        """Store what makes the context rebuild to the fold's output; the report counts as the marker does."""
        report = result.report
        snapshot = result.snapshot.model_dump() if result.snapshot is not None else None
        record = new_fold(result.messages, result.folded, snapshot, previous)
        if record is None:
            return None
        fold_id = self.store.add_fold(
            self.stored_id(),
            first_message_id=record.first_message_id,
            last_message_id=record.last_message_id,
            snapshot=record.snapshot,
            summarizer=report.summarizer,
            trigger=report.trigger or "manual",
            tokens_before=report.tokens_before,
            tokens_after=report.tokens_after,
        )
        covered = covered_messages(self.store.fold(fold_id), [s.id for s in transcript])
        return replace(report, folded_messages=covered)

    # -- replying ---------------------------------------------------------------------------------
    def add_user_message(self, text: str) -> int:
        return self.store.append(self.stored_id(), Message.user(text))

    def set_system_prompt(self, text: str) -> int:
        return self.store.append(self.stored_id(), Message.system(text))

    def replies_to_last_turn(self) -> list[int]:
        """Ids of the replies after the last user message (what a regenerate replaces)."""
        live = [s for s in self.transcript() if s.superseded_by is None and s.message.role != "system"]
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
        for round_number in range(MAX_TOOL_ROUNDS + 2):
            offer = offer and round_number < MAX_TOOL_ROUNDS
            request = await asyncio.to_thread(self._request, target, stale, offer, rounds)
            if request.tokens > target.window:  # the provider would refuse it, with a less helpful error
                self.reply_id = None
                yield Failed(self._over_window(target, request.tokens), None)
                return
            if round_number == 0:
                for event in self._before_sending(target, request):
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

    def _request(self, target: ModelTarget, stale: list[int], offer_tools: bool, rounds: list[int]) -> _Request:
        """The tools a request offers and the context it sends. Run off the event loop (the UI's), in one
        trip: the context reads the whole transcript back (~0.1 s at 2,000 messages).

        A request after tool rounds is counted like the first: if the rounds' calls and results no longer
        fit the window with the reply's reserve (answers are sized to fit, but a call message itself may
        be huge), the rounds are left out of what is sent (they stay in the transcript) and no tool is
        offered, so the model answers from the context it had."""
        tools = self.offered_tools(target) if offer_tools else None
        context = self.adapted_context(target, exclude=frozenset(stale))
        tokens = self.registry.counter(target).count(context)  # counted once: every check below reads this
        if rounds and self._room(target, tokens) < 0:
            context = self.adapted_context(target, exclude=frozenset([*stale, *rounds]))
            tokens, tools = self.registry.counter(target).count(context), None
        return _Request(tools, context, [m.to_dict() for m in context], tokens)

    def _before_sending(self, target: ModelTarget, request: _Request) -> list[ProviderEvent]:
        """What the user is told before the first request of a reply: images left out, a long read ahead."""
        told: list[ProviderEvent] = []
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
                f"{linked} given as a web address ({self._rules(target).provider} takes only images sent "
                "inline, and Foldchat fetches nothing)"
            )
        if unseen:
            reasons.append(f"{unseen} that {target.name} cannot see (it takes no images)")
        total = linked + unseen
        return f"{total} image{'s' * (total != 1)} left out of this request: " + "; ".join(reasons)

    def _over_window(self, target: ModelTarget, tokens: int) -> str:
        """Why a context of `tokens` is not sent to `target`: a context is never sent over the window,
        whatever folded it or did not."""
        return (
            f"not sent: the context is {tokens:,} tokens, over {target.name}'s {target.window:,}-token window; "
            "/resummarize folds it (or foldchat compress --force)"
        )

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
        row = self.store.append(self.stored_id(), Message.assistant(""), status="streaming", model=target.name)
        self.reply_id = row
        if stale:
            self.store.supersede(stale, row)
        text: list[str] = []
        last_save = time.monotonic()
        ended = False
        try:
            async for event in stream_reply(
                self._within_window(target, request.tokens),
                request.messages,
                timeout=self.settings.request_timeout,
                max_retries=self.settings.max_retries,
                deadline=self.settings.request_deadline,
                tools=request.tools,
            ):
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    if time.monotonic() - last_save >= SAVE_INTERVAL:
                        self.store.update_streaming(row, Message.assistant("".join(text)))
                        last_save = time.monotonic()
                elif isinstance(event, Finished | Failed):
                    # saved before the caller sees it: a caller that stops reading loses nothing
                    self._save_final(row, target, event, "".join(text), request.tokens)
                    ended = True
                    if isinstance(event, Finished) and event.message.tool_calls:
                        called.append(event)
                        continue
                yield event
        finally:
            if not ended:  # cancelled (Esc, Ctrl-C) or the consumer went away mid-stream
                self.store.finish(row, Message.assistant("".join(text)), "interrupted", error="stopped before the end")

    # -- recall: the model gets folded originals back ---------------------------------------------
    def offered_tools(self, target: ModelTarget) -> list[dict[str, Any]] | None:
        """The tools a request to `target` offers: `recall`, when `fold.recall` is on, litellm says the model
        calls functions (never the local model; unknown models get none) and a fold is active."""
        if not self.settings.fold.recall or self.active_fold() is None:
            return None
        kind = (target.litellm_model, target.is_local)
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
        transcript = self.transcript()
        numbered = [(n, s.message) for n, s in enumerate(transcript, start=1) if _sendable(s)]
        return recallable(numbered, self.context(transcript, target=target))

    def recall(
        self, target: ModelTarget | None = None, query: str | None = None, message: int | None = None, offset: int = 0
    ) -> str:
        """What the `recall` tool answers for these arguments (bounded; see `recall.recall`)."""
        return recall(self.recallable(target), query, message, offset)

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
            texts, room_left = answer_within(call.tool_calls, self.recallable(target), room, counter.count_text)
        else:
            texts, room_left = [NOT_OFFERED] * len(call.tool_calls), False
        conversation = self.stored_id()
        results: list[tuple[int, Message]] = []
        for tool_call, text in zip(call.tool_calls, texts, strict=True):
            result = Message.tool(tool_call.id, text, name=tool_call.name)
            results.append((self.store.append(conversation, result, model=target.name), result))
        assert self.reply_id is not None
        return ToolCallsAnswered(self.reply_id, call, tuple(results), more=more, room_left=room_left)

    def _within_window(self, target: ModelTarget, prompt_tokens: int) -> ModelTarget:
        """`target` asking for no more reply tokens than its window leaves after the prompt (an alias
        with 16,384 output tokens on an 8,192-token window asked for all of them)."""
        if target.max_output_tokens is None:
            return target
        room = target.window - prompt_tokens
        return target if target.max_output_tokens <= room else replace(target, max_output_tokens=max(1, room))

    def _save_final(
        self, row: int, target: ModelTarget, event: Finished | Failed, text: str, prompt_tokens: int
    ) -> None:
        if isinstance(event, Finished):
            usage = event.usage
            counter = self.registry.counter(target)
            tokens = usage.completion_tokens if usage else counter.count_message(event.message)
            # providers that report no usage are priced from our own counts
            cost = usage.cost if usage else target.cost(prompt_tokens, tokens)
            self.store.finish(row, event.message, "complete", tokens=tokens, cost=cost)
        else:
            self.store.finish(row, event.partial or Message.assistant(text), "error", error=event.error)

    def total_cost(self) -> float:
        return 0.0 if self.conversation_id is None else self.store.conversation_cost(self.conversation_id)


def choose_summarizer(settings: Settings, registry: ModelRegistry, target: ModelTarget) -> Summarizer:
    """Who writes snapshots for `target`: `rules`, `llm` (config's summarizer model or `target`), or `auto`.

    Auto: on a hosted model, the LLM summarizer with config's `summarizer_model` or else the provider's
    small model from litellm's map (`summarizer_model.small_model`), falling back to rules as `llm` does;
    on the local model, or without the key the summarizer needs, rules. Every snapshot, whoever wrote it,
    is then checked by the fold pipeline (`fold.check`)."""
    if settings.summarizer == "rules":
        return RulesSummarizer()
    name = settings.summarizer_model
    if name is None and settings.summarizer == "auto" and not target.is_local:
        name = small_model(target)
    model = registry.resolve(name) if name else target
    if settings.summarizer == "auto" and (model.is_local or missing_key(model) is not None):
        return RulesSummarizer()  # the tiny local model writes poor snapshots; rules are better
    if model.is_local:
        model = registry.prepare(model)
    return llm_with_fallback(model, settings.request_timeout)


def _same_fold(result: FoldResult, previous: StoredFold, context: Sequence[Message]) -> bool:
    """A re-fold that would store what is already there (same snapshot content, same verbatim tail)."""
    if result.snapshot is None:
        return False
    volatile = {"tokens_before", "depth"}
    old = snap.stored_snapshot(previous.snapshot).model_dump(exclude=volatile)
    same_tail = [m for m in result.messages if not m.is_snapshot] == [m for m in context if not m.is_snapshot]
    return same_tail and previous.edited_text is None and result.snapshot.model_dump(exclude=volatile) == old


def _sendable(stored: StoredMessage) -> bool:
    """Failed or interrupted replies are sent back only if they hold text the user saw.

    An empty assistant reply is never sent back, whatever its status: it says nothing, and older
    databases stored empty streams as `complete`.
    """
    if stored.superseded_by is not None:
        return False
    message = stored.message
    says_something = bool(message.text.strip() or message.tool_calls)
    if message.role == "assistant" and not says_something:
        return False
    if stored.status == "complete":
        return True
    return says_something and stored.status not in ("streaming", "unsent")
