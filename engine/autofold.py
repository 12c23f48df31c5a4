"""Automatic folding (docs/design.md §5): the policy's check before a send, with the user's consent
when `fold.auto` is ask (or off, and the send would not fit), paused after two failures in a row until
/resummarize, and the next fold prepared ahead in a worker past the reset ratio (fold/prefold.py), then
applied at the trigger. `Session.auto` holds one per session; faces call it directly."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from .errors import FoldchatError, UsageError
from .events import EventSink, FoldCompleted, FoldFailed as FoldFailedEvent, FoldStarted, ignore_events
from .fold.prefold import FoldInputs, PreFold, PreparedFold, newest_turn
from .fold.report import FoldReport
from .policy import Trigger
from .spend import token_prices
from .store import StoredMessage
from .summarizers import RulesSummarizer

if TYPE_CHECKING:
    from .config import Settings
    from .context import Context, Usage
    from .fold.chain import FoldChain
    from .providers.target import ModelTarget
    from .store import Store
    from .tokens import TokenCounter

ATTEMPTS = 2
PAUSED = "automatic folding paused after 2 failed attempts in a row: /resummarize retries"
MODES = ("on", "ask", "off")
CACHE_LIFETIME_SECONDS = 300.0  # Anthropic's and OpenAI's prompt caches forget a prefix unused this long
ASK_AGAIN_RATIO = 0.1  # after "not now", ask again once usage grew by this share of the window (or overflows)

log = logging.getLogger(__name__)


class Folding(Protocol):
    """What automatic folding reads of the session it serves (`Session` is one): named here, so this
    module needs nothing of the session's."""

    settings: Settings
    store: Store
    context: Context
    chain: FoldChain

    @property
    def target(self) -> ModelTarget: ...
    @property
    def connected(self) -> bool: ...
    @property
    def conversation_id(self) -> int | None: ...
    def usage(self, target: ModelTarget | None = None) -> Usage: ...
    def counter(self) -> TokenCounter: ...


class AutoFold:
    def __init__(self, session: Folding) -> None:
        self.session = session
        self.mode: str = session.settings.fold.auto
        """`fold.auto`: on, ask or off (`set_mode`, the TUI's /fold)."""
        self.switched = False
        """The model changed since the last check: the next one re-evaluates at once."""
        self.failures = 0
        """Automatic folds that failed in a row; at `ATTEMPTS` they stop until the user folds by hand."""
        self.declined_at: int | None = None
        """Usage when the user last said "not now" to a fold; they are not asked again until it grows."""
        self.prefold = PreFold()
        """The next automatic fold, prepared in the background (`prepare_fold`) and used at the trigger."""

    @property
    def paused(self) -> bool:
        """docs/design.md §5: after two failed automatic folds in a row, no retry on every send until /resummarize."""
        return self.failures >= ATTEMPTS

    def set_mode(self, mode: str) -> None:
        """Automatic folds for this session: `on`, `ask` or `off` (`auto` is a synonym of `on`)."""
        mode = "on" if mode == "auto" else mode
        if mode not in MODES:
            raise UsageError(f"fold mode must be auto, ask or off, not {mode!r}")
        self.mode = mode
        self.declined_at = None

    def decline(self) -> None:
        """The user said "not now": no new question until usage grows (or the next send would not fit)."""
        self.declined_at = self.session.usage().used

    def fold_if_needed(self, on_event: EventSink = ignore_events, consented: bool = False) -> FoldReport | None:
        """The policy's check before a send; a model switch since the last check re-evaluates at once.

        With `fold.auto` ask (or off, when the send would not fit), a fold the policy wants is not made:
        the report has `awaiting_consent` and what the fold would save; `consented=True` makes it."""
        if self.paused:
            return self._paused_report()
        if self.mode != "on" and not consented:
            return self._consent()
        trigger = Trigger.SWITCH if self.switched else None
        self.switched = False
        prepared = self._apply_prepared(trigger, on_event)
        if prepared is not None:
            self.failures = 0
            self.declined_at = None
            return prepared
        try:
            report = self.session.chain.fold(self.session.target, trigger=trigger, on_event=on_event)
        except FoldchatError:
            self.failures += 1
            raise
        if report is not None and report.failed:
            self.failures += 1
        elif report is not None and report.compressed:
            self.failures = 0
            self.declined_at = None
        return report

    def idle_fold_due(self, idle_seconds: float) -> bool:
        """Whether to fold now, unasked: idle past the provider's prompt-cache lifetime, the next send reads
        its whole prefix at full price anyway, so a fold past the reset ratio costs nothing extra now and
        saves at every later send (docs/design.md §15)."""
        if self.mode != "on" or self.paused or idle_seconds < CACHE_LIFETIME_SECONDS:
            return False
        prices = token_prices(self.session.target)
        if prices is None or prices[1] >= prices[0]:
            return False  # no prompt cache, nothing to lose by waiting for the trigger
        usage = self.session.usage()
        return self.session.settings.fold.reset_at(usage.window) <= usage.used < usage.trigger

    # -- background pre-fold (fold/prefold.py) -----------------------------------------------------
    def prefold_due(self) -> bool:
        """Whether a face should run `prepare_fold` in a worker now: an LLM may write the snapshots (rules
        fold at once anyway), automatic folds are not off or paused, no plan is waiting or being made,
        and usage is past the reset ratio but below the trigger."""
        if self.session.settings.summarizer == "rules" or self.mode == "off" or self.paused:
            return False
        if not self.session.connected or self.session.conversation_id is None or self.prefold.running:
            return False
        if self.prefold.holds(self._fold_inputs()):
            return False
        usage = self.session.usage()
        return self.session.settings.fold.reset_at(usage.window) <= usage.used < usage.trigger

    def prepare_fold(self) -> bool:
        """Blocking (a worker thread): compute the next automatic fold now, to apply at the trigger.

        True when a plan was kept. Never raises: a failure is logged (and kept in `prefold.failure`),
        and the trigger then folds as usual. Another preparation already running makes this a no-op."""
        if self.prefold.running:
            return False
        before = self._fold_inputs()
        ticket = self.prefold.start(before)
        if ticket is None:
            return False
        prepared = None
        self.prefold.failure = None
        try:
            prepared = self._plan_ahead(before)
        except Exception as error:  # silent by design: the normal fold is the fallback
            self.prefold.failure = f"{type(error).__name__}: {error}"
            log.info("pre-fold failed", exc_info=True)
        finally:
            self.prefold.finish(ticket, prepared)
        return prepared is not None

    def _plan_ahead(self, before: FoldInputs) -> PreparedFold | None:
        target = self.session.target
        if isinstance(self.session.chain.summarizer(target), RulesSummarizer):
            return None  # `auto` resolved to rules: they fold at the trigger in milliseconds
        context = self.session.context.messages()
        counter = self.session.counter()
        margin = newest_turn([counter.count_message(m) for m in context], [m.role for m in context])
        policy = self.session.settings.fold.ahead(self.session.usage(target).used, target.window, margin)
        plan = self.session.chain.plan_fold(target, policy=policy)
        if plan is None or not plan.report.compressed:
            return None
        if not plan.report.summarizer.startswith("llm:"):  # the LLM failed and rules wrote it: retry at the trigger
            self.prefold.failure = plan.report.summarizer
            log.info("pre-fold dropped: %s", plan.report.summarizer)
            return None
        inputs = replace(before, transcript=plan.transcript, active_fold=plan.previous)
        after = self._fold_inputs()
        if (after.pinned, after.dropped_rules) != (before.pinned, before.dropped_rules):
            return None  # pins or rules changed while it ran: which ones it saw is unknown
        return PreparedFold(plan, inputs)

    def _fold_inputs(self, transcript: list[StoredMessage] | None = None) -> FoldInputs:
        target, context = self.session.target, self.session.context
        return FoldInputs(
            transcript=tuple(context.transcript() if transcript is None else transcript),
            active_fold=context.active_fold(),
            pinned=tuple(context.pinned_texts()),
            dropped_rules=tuple(self._dropped_rules()),
            model=target.name,
            window=target.window,
        )

    def _dropped_rules(self) -> list[str]:
        return (
            []
            if self.session.conversation_id is None
            else self.session.store.dropped_rules(self.session.conversation_id)
        )

    def _apply_prepared(self, trigger: Trigger | None, on_event: EventSink) -> FoldReport | None:
        """At the trigger, the prepared fold if it still holds and fits; None to fold as usual.

        A preparation still running is waited for (up to one request timeout) rather than repeated, unless
        what it started from changed since (an undo, an edit): then nobody waits to throw it away. The
        transcript is read once here: this is the path the reply waits for (bench/prefold_bench.py)."""
        transcript = self.session.context.transcript()
        inputs = self._fold_inputs(transcript)
        if self.prefold.running_for(inputs):
            decision, usage = self.session.chain.fold_decision(self.session.target, trigger, transcript)
            if decision.fold:  # the face shows a fold in progress while it waits
                on_event(
                    FoldStarted(
                        str(decision.trigger or Trigger.AUTO), len(self.session.context.messages()), usage.tokens
                    )
                )
                self.prefold.wait_idle(self.session.settings.request_timeout)
                transcript = self.session.context.transcript()
                inputs = self._fold_inputs(transcript)
        if not self.prefold.holds(inputs):
            return None
        decision, usage = self.session.chain.fold_decision(self.session.target, trigger, transcript)
        if not decision.fold:
            return None  # not due yet: the plan waits
        plan = self.prefold.take(inputs)
        if plan is None:
            return None
        live = sum(1 for m in transcript if m.superseded_by is None)
        on_event(FoldStarted(str(decision.trigger or Trigger.AUTO), live, usage.tokens))
        report = self.session.chain.apply_prepared(plan, self.session.target, (decision, usage), transcript)
        if report is None:
            log.info("prepared fold not used: over the target, or another fold was stored meanwhile")
            on_event(FoldFailedEvent("the prepared fold no longer applies: folding again"))
            return None
        on_event(FoldCompleted(report))
        return report

    def _paused_report(self, reason: str = PAUSED, consent: bool = False) -> FoldReport:
        usage = self.session.usage()
        return FoldReport(
            compressed=False, reason=reason, tokens_before=usage.tokens, tokens_after=usage.tokens,
            window=usage.window, reserved_output=usage.reserved, trigger_tokens=usage.trigger,
            target_tokens=usage.target, awaiting_consent=consent,
        )  # fmt: skip

    def at_trigger(self, usage: Usage) -> str:
        """What a send past the trigger does now: "folds", "asks", "declined" (the user said not now: no
        question until the context grows), "off", or what holds the policy back (`Usage.held`: "cooldown",
        "not re-armed", "too few messages"; the gauge says which)."""
        if self.mode == "off":
            return "off"
        if usage.held:
            return usage.held
        if self.mode == "on":
            return "folds"
        return "asks" if self._asks_again(usage) else "declined"

    def _asks_again(self, usage: Usage) -> bool:
        return self.declined_at is None or usage.used >= self.declined_at + ASK_AGAIN_RATIO * usage.window

    def _consent(self) -> FoldReport | None:
        """Ask (or, with `off`, ask only when the send would not fit): None when no fold is due."""
        trigger = Trigger.SWITCH if self.switched else None
        decision, usage = self.session.chain.fold_decision(self.session.target, trigger)
        if not decision.fold:
            return None
        overflow = decision.trigger == Trigger.EMERGENCY
        if self.mode == "off" and not overflow:
            return self._paused_report("automatic folding is off (/fold auto turns it on, /resummarize folds now)")
        if not (overflow or self._asks_again(usage)):
            return self._paused_report("fold declined: not asking again until the context grows")
        saves = max(0, usage.used - usage.target)
        what = "the next send would not fit the window" if overflow else "the context reached the fold trigger"
        reason = f"{what}: fold now? it would save about {saves:,} tokens ({usage.used:,} → ≈{usage.target:,})"
        return self._paused_report(reason, consent=True)
