"""A conversation's fold chain (docs/design.md §1, §5): making folds with the pipeline (by the policy,
forced, previewed, prepared ahead) and storing them, and reading them back: the snapshot as the model
sees it, what a fold covers, the standing rules it carries."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from .. import snapshot as snap
from ..config import Settings
from ..context import Context, Usage, sendable
from ..errors import FoldFailed
from ..events import EventSink, FoldProgress, ignore_events
from ..facts import is_standing_rule
from ..invariants import violations
from ..messages import Message
from ..policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from ..providers.meter import metered
from ..providers.registry import ModelRegistry
from ..providers.stream import missing_key
from ..providers.target import ModelTarget
from ..snapshot import Snapshot
from ..store import StoredFold, StoredMessage
from ..store.records import transcript_numbers
from ..store.usage_rows import add_summarizer_usage
from ..summarizer_model import small_model
from ..summarizers import RulesSummarizer, Summarizer
from ..summarizers.llm import llm_with_fallback
from .layout import FoldLayout, NewFold, covered_ids, covered_messages, new_fold
from .pipeline import FoldRequest, FoldResult, fold_context
from .report import FoldReport


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


class FoldChain:
    def __init__(self, context: Context, folding: threading.RLock | None = None) -> None:
        self.context = context
        self.store = context.store
        self.registry = context.registry
        self.settings = context.settings
        self.folding = folding or threading.RLock()
        """Held while a fold is made and stored: one at a time (the session shares one across its chains).
        A fold left running by a face that stopped waiting (Esc mid-fold) finishes before the next starts,
        which then decides on the folded context: two folds never store over each other."""

    @contextmanager
    def _one_at_a_time(self, on_event: EventSink = ignore_events) -> Iterator[None]:
        if not self.folding.acquire(blocking=False):
            on_event(FoldProgress("waiting for the fold under way", 0, 0))
            self.folding.acquire()
        try:
            yield
        finally:
            self.folding.release()

    # -- the chain as stored -------------------------------------------------------------------------
    def folds(self, include_undone: bool = False) -> list[StoredFold]:
        """The fold chain, oldest first."""
        conversation = self.context.conversation_id
        return [] if conversation is None else self.store.folds(conversation, include_undone)

    def record(self, fold_id: int) -> StoredFold:
        return self.store.fold(fold_id)

    def coverage(self, fold: StoredFold) -> int:
        """How many transcript messages `fold` stands for: the count the toast, marker and inspector show."""
        return covered_messages(fold, [m.id for m in self.context.transcript()])

    def covered_ids(self, fold: StoredFold) -> list[int]:
        """The transcript ids `fold` stands for, oldest first (`coverage` of them)."""
        return covered_ids(fold, [m.id for m in self.context.transcript()])

    def snapshot_text(self, fold: StoredFold) -> str:
        """What the model sees for `fold`: the user's edit if there is one."""
        return snap.snapshot_text(fold)

    def snapshot_of(self, fold: StoredFold) -> Snapshot:
        """The fold's snapshot as the model sees it: the user's edit read back, if there is one."""
        parsed = snap.parse(fold.edited_text) if fold.edited_text else snap.stored_snapshot(fold.snapshot)
        return parsed or Snapshot()

    def standing_rules(self, fold: StoredFold) -> list[str]:
        """The user's standing rules the fold carries, in the order they were said."""
        return [r for r in self.snapshot_of(fold).constraints_and_preferences if is_standing_rule(r)]

    # -- making folds (pipeline.py does the folding) ----------------------------------------------
    def summarizer(self, target: ModelTarget) -> Summarizer:
        """Per config: rules, an LLM (falling back to rules), or auto: an LLM when a hosted one is usable."""
        return choose_summarizer(self.settings, self.registry, target)

    def fold_history(self, target: ModelTarget, transcript: Sequence[StoredMessage] | None = None) -> FoldHistory:
        fold = self.context.active_fold()
        if fold is None:
            return FoldHistory()
        stored = self.context.transcript() if transcript is None else transcript
        since = sum(1 for m in stored if m.created_at > fold.created_at)
        reserved = self.registry.reserved_output(target)
        dropped = fold.tokens_after + reserved < self.settings.fold.reset_at(target.window)
        return FoldHistory(folded=True, messages_since=since, dropped_below_reset=dropped)

    def held(self, target: ModelTarget, usage: Usage, transcript: Sequence[StoredMessage] | None = None) -> str:
        """Past the trigger, what would keep the next send from folding automatically (`Decision.held`),
        with that send's prompt counted among the messages, as the check at that send counts it."""
        if usage.fits:
            return ""
        stored = self.context.transcript() if transcript is None else transcript
        history = self.fold_history(target, stored)
        if history.folded:
            history = replace(history, messages_since=history.messages_since + 1)
        return self._decided(target, usage.used, stored, history, upcoming=1).held

    def fold_decision(
        self, target: ModelTarget, trigger: Trigger | None = None, transcript: Sequence[StoredMessage] | None = None
    ) -> tuple[Decision, Usage]:
        """What the fold policy says now, without folding (for `fold.auto = "ask"` and `"off"`, and at the
        trigger for a prepared fold, which passes the `transcript` it read)."""
        stored = self.context.transcript() if transcript is None else transcript
        usage = self.context.usage(target, transcript=stored)
        history = None if trigger == Trigger.SWITCH else self.fold_history(target, stored)
        return self._decided(target, usage.used, stored, history), usage

    def _decided(
        self, target: ModelTarget, used: int, stored: Sequence[StoredMessage], history: FoldHistory | None, upcoming: int = 0
    ) -> Decision:
        """The policy's word at `used` tokens, counting the context's messages and `upcoming` ones about to join."""
        count = upcoming + sum(1 for m in self.context.messages(stored) if m.role != "system")
        return decide(self.settings.fold, usage=used, window=target.window, message_count=count, history=history)

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
        with self._one_at_a_time(on_event):
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
        transcript = self.context.transcript()
        context = self.context.messages(transcript)
        if not context:
            return None
        previous = self.context.active_fold()
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
        with metered() as spent:  # the summarizer's calls are paid whether or not this fold is kept
            try:
                result = fold_context(self.context.originals(transcript) if refold else context, request)
            finally:
                if self.context.conversation_id is not None:
                    add_summarizer_usage(self.store, self.context.conversation_id, spent)
        report = result.report
        if report.compressed and refold and previous is not None and _same_fold(result, previous, context):
            reason = "no message arrived since the last fold: the snapshot would be the same"
            report = replace(report, compressed=False, reason=reason, tokens_after=report.tokens_before)
        return FoldPlan(report, result, previous, tuple(transcript))

    def apply_fold(self, plan: FoldPlan) -> FoldReport | None:
        """Store exactly the previewed fold, if the conversation is still as it was when it was computed."""
        if not plan.report.compressed:
            return plan.report
        with self._one_at_a_time():
            planned_on = [s.id for s in plan.transcript]
            if not self._on_top_of(plan.previous) or [s.id for s in self.context.transcript()] != planned_on:
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
        record = _record(result, plan.previous)
        if record is None:
            return None
        messages = [s.message for s in transcript if sendable(s)]
        context = self.context.with_fold(messages, record, target)
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
        with self._one_at_a_time():
            if not self._on_top_of(plan.previous):
                return None  # another fold was stored meanwhile: the plan was made on what it replaced
            return self._store_fold(replace(result, report=report), plan.previous, transcript)

    def _on_top_of(self, previous: StoredFold | None) -> bool:
        """Whether the active fold is still `previous`, the one a plan was made on: each fold is stored on
        the one it replaces, so a plan made before another fold was stored is stale."""
        active = self.context.active_fold()
        return (active.id if active else None) == (previous.id if previous else None)

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
            pinned=self.context.pinned_texts(),
            dropped_rules=[]
            if self.context.conversation_id is None
            else self.store.dropped_rules(self.context.conversation_id),
            focus=focus,
            on_event=on_event,
            numbers=transcript_numbers([s.id for s in transcript]),
        )

    def _store_fold(
        self, result: FoldResult, previous: StoredFold | None, transcript: Sequence[StoredMessage]
    ) -> FoldReport | None:
        """Store what makes the context rebuild to the fold's output; the report counts as the marker does."""
        report = result.report
        record = _record(result, previous)
        if record is None:
            return None
        fold_id = self.store.add_fold(
            self.context.stored_id(),
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


def _record(result: FoldResult, previous: StoredFold | None) -> NewFold | None:
    """What storing `result` on `previous` writes: the fold's range and snapshot (None: nothing to store)."""
    snapshot = snap.as_data(result.snapshot) if result.snapshot is not None else None
    return new_fold(result.messages, result.folded, snapshot, previous)


def choose_summarizer(settings: Settings, registry: ModelRegistry, target: ModelTarget) -> Summarizer:
    """Who writes snapshots for `target`: `rules`, `llm` (config's summarizer model or `target`), or `auto`.

    Auto: on a hosted model, the LLM summarizer with config's `summarizer_model` or else the provider's
    small model from litellm's map (`summarizer_model.small_model`), falling back to rules as `llm` does;
    on the local model, or without the key the summarizer needs, rules. Every snapshot, whoever wrote it,
    is then checked by the fold pipeline (`fold.check`)."""
    if settings.summarizer == "rules":
        return RulesSummarizer()
    name = settings.summarizer_model
    if name is None and settings.summarizer == "auto" and not target.backend.on_this_machine:
        name = small_model(target)
    model = registry.resolve(name) if name else target
    if settings.summarizer == "auto" and (model.backend.on_this_machine or missing_key(model) is not None):
        return RulesSummarizer()  # the tiny local model writes poor snapshots; rules are better
    model = registry.prepare(model)  # a model on this machine is started; any other is ready as it is
    return llm_with_fallback(model, settings.request_timeout)


def _same_fold(result: FoldResult, previous: StoredFold, context: Sequence[Message]) -> bool:
    """A re-fold that would store what is already there (same snapshot content, same verbatim tail)."""
    if result.snapshot is None:
        return False
    volatile = {"tokens_before", "depth"}
    old = snap.as_data(snap.stored_snapshot(previous.snapshot), leaving_out=volatile)
    same_tail = [m for m in result.messages if not m.is_snapshot] == [m for m in context if not m.is_snapshot]
    return same_tail and previous.edited_text is None and snap.as_data(result.snapshot, leaving_out=volatile) == old
