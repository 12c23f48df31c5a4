"""The fold pipeline (docs/design.md §6): repair, decide, condense, split, summarize, rebuild, verify.

`fold_context` is the one entry point: the CLI's `compress`, `foldchat ask` and the TUI all call it.
It never mutates its input and never loses a message: it returns a new context plus a `FoldReport`;
on any failure inside the pipeline the caller keeps the original context. Each docs/design.md §6 step is one
small function below, in pipeline order.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from .. import quoted_snapshots, references as refs, snapshot as snap
from ..alternation import current_turn_start, repair
from ..errors import CurrentTurnTooLarge, FoldFailed
from ..events import EventSink, FoldCompleted, FoldFailed as FoldFailedEvent, FoldProgress, FoldStarted, ignore_events
from ..invariants import violations
from ..messages import FrozenDict, Message
from ..policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from ..snapshot import Snapshot, is_snapshot_message
from ..summarizers.base import Summarizer, SummaryRequest
from ..summarizers.remembering import Remembering
from ..summarizers.rules import RulesSummarizer
from ..tokens import TokenCounter
from .check import check_snapshot
from .chunked import summarize_chunked
from .condense import condense_oversized
from .fit import fit_snapshot, rules_not_carried
from .prune import Pruned, prune_tool_outputs
from .report import FoldReport
from .room import MIN_SNAPSHOT_BUDGET, ack_tokens, planned_snapshot, snapshot_budget, snapshot_room, under_target
from .split import Split, newest_exchange_start, safe_split
from .supersede import supersede

REFOLD_SLACK = 32  # tokens a user-forced re-fold may add over the context it replaces (a focus costs words)


@dataclass(frozen=True)
class FoldResult:
    messages: list[Message]
    report: FoldReport
    snapshot: Snapshot | None = None
    folded: list[Message] = field(default_factory=list)


@dataclass(frozen=True)
class FoldRequest:
    """Everything a fold needs besides the messages."""

    counter: TokenCounter
    window: int
    summarizer: Summarizer
    policy: FoldPolicy = field(default_factory=FoldPolicy)
    reserved_output: int = 0
    force: bool = False
    trigger: Trigger | None = None
    history: FoldHistory | None = None
    pinned: Sequence[str] = ()
    dropped_rules: Sequence[str] = ()
    """Standing rules the user dropped: never carried again, even when a re-fold reads them anew."""
    focus: str | None = None
    on_event: EventSink = ignore_events
    numbers: Mapping[int, int] | None = None
    """Message key -> its 1-based number in the conversation's transcript; without it, input position + 1."""
    fold_through: int | None = None
    """A re-fold from the original messages folds at least every message keyed up to this one."""
    replaces_tokens: int | None = None
    """A re-fold's messages are the originals; this is the size of the context it would replace."""


@dataclass(frozen=True)
class _Context:
    """The repaired context a fold starts from, split into system prompts and the rest."""

    messages: list[Message]
    systems: list[Message]
    rest: list[Message]
    keep_from: int  # where the current turn starts in `rest`
    keep_turn_start: bool  # False when the turn "starts" at an earlier snapshot: it is merged, not kept
    exchange_from: int  # where the newest exchange of the current turn starts in `rest`
    floor: int  # the earliest index of `rest` the kept tail may start at
    tokens_before: int
    repairs: tuple[str, ...]
    started: float


@dataclass(frozen=True)
class _Summary:
    snapshot: Snapshot
    chunks: int
    depth: int
    covers: tuple[int, int] | None
    messages: int  # how many messages of the history it stands for (earlier snapshots aside)
    restored: int = 0  # identifiers the check put back
    carried: frozenset[str] = frozenset()  # items (without references) an earlier snapshot carried


def fold_context(messages: Sequence[Message], request: FoldRequest) -> FoldResult:
    """Fold `messages` if the policy (or `request.force`) says so; see the module docstring."""
    if _costly(request) and not isinstance(request.summarizer, Remembering):
        request = replace(request, summarizer=Remembering(request.summarizer))  # each span asked once
    context = _prepare(messages, request)
    _check_current_turn_fits(context, request)
    decision = _decide(context, request)
    if not decision.fold:
        return _unchanged(context, request, decision.reason)
    if _split(context, [0] * len(context.rest), 0) is None:
        reason = "the context holds only the current user message and its newest exchange, which are never folded"
        return FoldResult(list(context.messages), replace(_unchanged_report(context, request, reason), failed=True))
    trigger = request.trigger or decision.trigger or Trigger.AUTO
    request.on_event(FoldStarted(str(trigger), len(context.messages), context.tokens_before))
    try:
        return _fold(context, request, decision, trigger)
    except Exception as error:
        request.on_event(FoldFailedEvent(str(error)))
        raise


def _prepare(messages: Sequence[Message], request: FoldRequest) -> _Context:
    started = time.perf_counter()
    repaired = repair(messages)
    context = repaired.messages
    systems = [m for m in context if m.role == "system"]
    rest = context[len(systems) :]
    keep_from = current_turn_start(rest)
    counted = request.counter.count(context)
    return _Context(
        messages=list(context),
        systems=systems,
        rest=list(rest),
        keep_from=keep_from,
        keep_turn_start=not (rest and is_snapshot_message(rest[keep_from])),
        exchange_from=newest_exchange_start(rest, keep_from),
        floor=_floor(rest, keep_from, request.fold_through),
        tokens_before=request.replaces_tokens if request.replaces_tokens is not None else counted,
        repairs=tuple(repaired.notes),
        started=started,
    )


def _floor(rest: Sequence[Message], keep_from: int, fold_through: int | None) -> int:
    """The tail starts after every message the replaced fold covered (its kept user message aside)."""
    if fold_through is None:
        return 1
    covered = [i for i, m in enumerate(rest) if m.key is not None and m.key <= fold_through and i != keep_from]
    return max(1, max(covered, default=0) + 1)


def _check_current_turn_fits(context: _Context, request: FoldRequest) -> None:
    """docs/design.md §3.5: the current user message and the newest exchange are never cut; say which overflows."""
    if not context.rest:
        return
    count = request.counter.count
    reserved, window = request.reserved_output, request.window
    user = context.rest[context.keep_from]
    exchange = context.rest[context.exchange_from :]
    floor = count([*context.systems, user, *exchange]) + reserved
    if floor > window:
        if exchange:
            what = f"the current user message ({count([user]):,} tokens) and its newest exchange ({count(exchange):,} tokens)"
        else:
            what = f"the current user message ({count([user]):,} tokens)"
        raise CurrentTurnTooLarge(
            f"{what} alone need {floor:,} tokens with the system prompt and {reserved:,} reserved for the reply, "
            f"but the window is {window:,}: shorten the last message or pick a model with a larger window"
        )


def _decide(context: _Context, request: FoldRequest) -> Decision:
    if request.force:
        return Decision(True, "forced fold", request.trigger or Trigger.MANUAL)
    return decide(
        request.policy,
        usage=context.tokens_before + request.reserved_output,
        window=request.window,
        message_count=len(context.rest),
        history=request.history,
    )


def _unchanged_report(context: _Context, request: FoldRequest, reason: str) -> FoldReport:
    """What every report says (window, budgets, repairs) for a context left as it was."""
    return FoldReport(
        compressed=False,
        reason=reason,
        tokens_before=context.tokens_before,
        tokens_after=context.tokens_before,
        window=request.window,
        reserved_output=request.reserved_output,
        trigger_tokens=request.policy.trigger_at(request.window),
        target_tokens=request.policy.target_at(request.window),
        kept_messages=len(context.messages),
        repairs=context.repairs,
        summarizer=request.summarizer.name,  # read late: a fallback renames it ("rules (llm:x failed: ...)")
        duration_ms=_ms(context.started),
    )


def _unchanged(context: _Context, request: FoldRequest, reason: str) -> FoldResult:
    return FoldResult(list(context.messages), _unchanged_report(context, request, reason))


def _fold(context: _Context, request: FoldRequest, decision: Decision, trigger: Trigger) -> FoldResult:
    """Steps 0-4 of docs/design.md §6 on a context the policy decided to fold."""
    if not request.force:
        only = _pruned_only(context, request, decision, trigger, _prune_step(context, request, to_target=True))
        if only is not None:
            return only
    pruned = _prune_step(context, request, to_target=False)
    rest, condensed = _condense_step(context, request, pruned.messages)
    counts = [request.counter.count_message(m) for m in rest]
    split, summary, snapshot = _summarize_to_fit(context, request, rest, counts)
    head, tail = split.head(rest), split.tail(rest)
    folded = _rebuild(context.systems, snapshot, tail)
    tokens_after = request.counter.count(folded)
    if not _smaller(context, request, tokens_after):  # a short history: the snapshot gives back its excess
        snapshot, folded, tokens_after = _shrunk(context, request, snapshot, tail, tokens_after)
    if not _smaller(context, request, tokens_after):
        reason = f"folding would not make the context smaller ({context.tokens_before:,} → {tokens_after:,} tokens)"
        report = replace(_unchanged_report(context, request, reason), failed=True)
        request.on_event(FoldCompleted(report))
        return FoldResult(list(context.messages), report)
    snapshot_message = folded[len(context.systems)]
    report = replace(
        _unchanged_report(context, request, decision.reason),
        compressed=True,
        tokens_after=tokens_after,
        folded_messages=summary.messages,
        kept_messages=len(tail),
        trigger=str(trigger),
        snapshot_tokens=request.counter.count_message(snapshot_message),
        chunks=summary.chunks,
        consolidation_depth=summary.depth,
        split_phase=split.phase,
        covers=summary.covers,
        condensed_messages=tuple(condensed),
        pruned_messages=_numbers(context, request, [i for i in pruned.positions if _in_tail(split, i)]),
        over_target=not _within_target(request, tokens_after),
        pinned_kept=(sum(1 for text in request.pinned if text in snapshot_message.text), len(request.pinned)),
        restored_identifiers=summary.restored,
        rules_not_carried=tuple(rules_not_carried(summary.snapshot, snapshot)),
    )
    request.on_event(FoldProgress("rebuild", 1, 1))
    request.on_event(FoldCompleted(report))
    return FoldResult(folded, report, snapshot, head)


def _shrunk(
    context: _Context, request: FoldRequest, snapshot: Snapshot, tail: list[Message], tokens_after: int
) -> tuple[Snapshot, list[Message], int]:
    """The snapshot fitted again to what makes the context smaller than before (a short conversation's
    snapshot, written with room to spare, can outgrow the turns it replaces); least informative goes first.
    Never at the cost of a standing rule: a context a few tokens smaller is not worth one (a forced fold of
    20 short messages dropped "Always reply in bullet points" to save 2), so the fold is refused instead."""
    excess = tokens_after - context.tokens_before + 1
    budget = _snapshot_tokens(request.counter, snapshot) - excess
    unchanged = snapshot, _rebuild(context.systems, snapshot, tail), tokens_after
    if budget < MIN_SNAPSHOT_BUDGET:
        return unchanged
    smaller = fit_snapshot(snapshot, budget, lambda s: _snapshot_tokens(request.counter, s))
    if rules_not_carried(snapshot, smaller):
        return unchanged
    folded = _rebuild(context.systems, smaller, tail)
    return smaller, folded, request.counter.count(folded)


def _smaller(context: _Context, request: FoldRequest, tokens_after: int) -> bool:
    """A fold must shrink the context; a user-forced re-fold may cost a few tokens more (its focus)."""
    if request.replaces_tokens is not None:
        return tokens_after <= context.tokens_before + REFOLD_SLACK
    return tokens_after < context.tokens_before


def _in_tail(split: Split, index: int) -> bool:
    return index >= split.index or index == split.kept_turn_start


def _prune_step(context: _Context, request: FoldRequest, to_target: bool) -> Pruned:
    """Step 0: old tool outputs become stubs; the previous user turn and the newest exchange stay whole.

    With `to_target`, only as many as bring the context to the target (oldest first)."""
    rest, keep_from = context.rest, context.keep_from
    previous_turn = next((i for i in range(keep_from - 1, -1, -1) if rest[i].role == "user"), keep_from)
    counts = [request.counter.count_message(m) for m in rest]
    offset = len(context.systems)
    return prune_tool_outputs(
        rest,
        counts,
        lambda i: i < previous_turn or keep_from < i < context.exchange_from,
        request.policy.prune_keep_at(request.window),
        lambda i: _number(request, rest[i], offset + i),
        (_over_target(context, request), request.counter.count_message) if to_target else None,
    )


def _over_target(context: _Context, request: FoldRequest) -> int:
    return context.tokens_before + request.reserved_output - request.policy.target_at(request.window)


def _pruned_only(
    context: _Context, request: FoldRequest, decision: Decision, trigger: Trigger, pruned: Pruned
) -> FoldResult | None:
    """A fold that only pruned tool outputs, if that alone reaches the target (no snapshot is written)."""
    if not pruned.positions:
        return None
    messages = [*context.systems, *pruned.messages]
    tokens_after = request.counter.count(messages)
    if not _within_target(request, tokens_after):
        return None
    problems = violations(messages, context.systems)
    if problems:
        raise FoldFailed("the pruned context broke an invariant: " + "; ".join(problems))
    numbers = _numbers(context, request, list(pruned.positions))
    report = replace(
        _unchanged_report(context, request, f"pruned {len(numbers)} tool outputs"),
        compressed=True,
        tokens_after=tokens_after,
        kept_messages=len(messages),
        trigger=str(trigger),
        pruned_messages=numbers,
    )
    request.on_event(FoldProgress("prune", len(numbers), len(numbers)))
    request.on_event(FoldCompleted(report))
    return FoldResult(messages, report)


def _condense_step(context: _Context, request: FoldRequest, rest: list[Message]) -> tuple[list[Message], list[int]]:
    """Step 1: oversized messages before the current turn are condensed in the context.

    Returns the new messages and the condensed ones' transcript numbers.
    """
    threshold = request.policy.message_threshold(request.window)
    result = condense_oversized(rest, context.keep_from, request.counter, threshold)
    numbers = list(_numbers(context, request, list(result.positions)))
    if numbers:
        request.on_event(FoldProgress("condense", len(numbers), len(numbers)))
    return result.messages, numbers


def _summarize_to_fit(
    context: _Context, request: FoldRequest, rest: list[Message], counts: list[int]
) -> tuple[Split, _Summary, Snapshot]:
    """Steps 2-3, snapshot first: once its real size is known, the verbatim tail takes what it left."""
    split = _split_step(context, request, rest, counts, planned_snapshot(context.systems, request), cap=True)
    summary = _summarize_step(context, request, split)
    snapshot = _fit(context, request, summary, split.tail_tokens)
    if _within_target(request, context.tokens_before):
        return split, summary, snapshot  # a forced fold of a small context: widening would fold nothing
    resized = _split_step(context, request, rest, counts, _snapshot_tokens(request.counter, snapshot), cap=False)
    # wider when the snapshot came out smaller than its estimate; narrower when it came out bigger than
    # the room the tail left it (fitting cannot always shrink it that far) and the context is over target
    if resized.index != split.index and (
        resized.tail_tokens > split.tail_tokens or not _under(context, request, snapshot, split.tail(rest))
    ):
        if _costly(request) and resized.index < split.index:
            # a model call per resize: a snapshot that left room keeps it rather than summarizing again
            return split, summary, snapshot
        if _costly(request):  # the head grew: only the messages it gained are summarized, then merged
            extra = _summarize_step(context, request, resized, skip=frozenset(_head_positions(split)))
            summary = _extended(context, request, summary, extra)
        else:  # the rules summarizer is cheap and deterministic: the whole new head, as before
            summary = _summarize_step(context, request, resized)
        split = resized
        snapshot = _fit(context, request, summary, split.tail_tokens)
    return split, summary, snapshot


def _costly(request: FoldRequest) -> bool:
    """Whether summarizing costs a model call (anything but the rules summarizer)."""
    return type(request.summarizer) is not RulesSummarizer


def _head_positions(split: Split) -> list[int]:
    """Positions (in the context's rest) of the messages `split` folds; a kept turn start stays verbatim."""
    return [i for i in range(split.index) if i != split.kept_turn_start]


def _extended(context: _Context, request: FoldRequest, summary: _Summary, extra: _Summary) -> _Summary:
    """`summary` of a head followed by `extra`, the summary of the messages a wider head added."""
    if extra.messages == 0:
        return summary
    merged = supersede(snap.merge(summary.snapshot, extra.snapshot))
    merged = replace(merged, depth=summary.snapshot.depth, tokens_before=context.tokens_before)
    covers = summary.covers or extra.covers
    if summary.covers and extra.covers:
        covers = (min(summary.covers[0], extra.covers[0]), max(summary.covers[1], extra.covers[1]))
    return _Summary(
        merged, summary.chunks + extra.chunks, max(summary.depth, extra.depth), covers,
        summary.messages + extra.messages, summary.restored + extra.restored, summary.carried | extra.carried,
    )  # fmt: skip


def _under(context: _Context, request: FoldRequest, snapshot: Snapshot, tail: list[Message]) -> bool:
    """Whether the context rebuilt from `snapshot` and `tail` is within the target."""
    return _within_target(request, request.counter.count(_rebuild(context.systems, snapshot, tail)))


def _within_target(request: FoldRequest, tokens: int) -> bool:
    """Whether a context of `tokens`, with the reply's reserve, is within the fold's target."""
    return tokens + request.reserved_output <= request.policy.target_at(request.window)


def _fit(context: _Context, request: FoldRequest, summary: _Summary, tail_tokens: int) -> Snapshot:
    """The snapshot fitted to the room the tail leaves it (a fold that would not shrink the context is
    refused afterwards, `_smaller`)."""
    request.on_event(FoldProgress("rebuild", 0, 1))
    room = snapshot_room(context.systems, request, tail_tokens)
    return fit_snapshot(summary.snapshot, room, lambda s: _snapshot_tokens(request.counter, s), summary.carried)


def _split_step(
    context: _Context, request: FoldRequest, rest: list[Message], counts: list[int], snapshot_tokens: int, cap: bool
) -> Split:
    """Step 2: the tail gets the target minus the snapshot (capped at `keep_ratio` before it is sized)."""
    tail_budget = under_target(context.systems, request) - snapshot_tokens - ack_tokens(request.counter)
    if cap:
        tail_budget = min(request.policy.keep_at(request.window), tail_budget)
    if request.force:  # a fold the user asked for always folds at least the older half of the history
        tail_budget = min(tail_budget, sum(counts) // 2)
    split = _split(context, counts, max(tail_budget, 0))
    if split is None:
        raise FoldFailed("no safe split point was found")
    request.on_event(FoldProgress("split", 1, 1, f"phase {split.phase}: folding {split.index} messages"))
    return split


def _split(context: _Context, counts: Sequence[int], budget: int) -> Split | None:
    return safe_split(context.rest, counts, budget, context.keep_from, context.floor, context.keep_turn_start)


def _summarize_step(
    context: _Context, request: FoldRequest, split: Split, skip: frozenset[int] = frozenset()
) -> _Summary:
    """Step 3: summarize the original head (but the positions in `skip`, summarized already); an earlier
    snapshot in it is merged, never duplicated."""
    positions = [i for i in _head_positions(split) if i not in skip]
    head = [context.rest[i] for i in positions]
    previous = [parsed for m in head if is_snapshot_message(m) and (parsed := snap.parse(m.text)) is not None]
    kept = _data_positions(head)
    data = [head[k] for k in kept]
    summary_request = SummaryRequest(
        messages=[_as_data(m) for m in data],
        pinned=tuple(request.pinned),
        focus=request.focus,
        output_budget=snapshot_budget(context.systems, request),
        numbers=_numbers(context, request, [positions[k] for k in kept]),
    )
    summary, chunks, depth = summarize_chunked(summary_request, request.summarizer, request.counter, request.on_event)
    summary, restored = _checked(request, summary, summary_request)
    summary = _with_history_head(summary, data, summary_request.numbers or range(1, len(data) + 1))
    for earlier in reversed(previous):
        summary = snap.merge(earlier, summary)
    summary = supersede(summary)  # a value the new span changed is no longer carried as current
    summary = _without_dropped_rules(summary, request.dropped_rules)
    covers = _covers(context, request, [positions[k] for k in kept])
    summary = replace(
        summary,
        tokens_before=context.tokens_before,
        pinned=refs.merge_referenced([*summary.pinned, *request.pinned]),
        covers=summary.covers
        if covers is None
        else snap.join_covers(summary.covers if previous else "", f"{covers[0]}..{covers[1]}"),
    )
    carried = frozenset(
        refs.body(item) for earlier in previous for name in snap.LIST_SECTIONS for item in getattr(earlier, name)
    )
    return _Summary(summary, chunks, depth, covers, len(data), restored, carried)


def _without_dropped_rules(summary: Snapshot, dropped: Sequence[str]) -> Snapshot:
    if not dropped:
        return summary
    gone = {refs.body(rule) for rule in dropped}  # a rule is the same rule whichever messages it names
    kept = [c for c in summary.constraints_and_preferences if refs.body(c) not in gone]
    return replace(summary, constraints_and_preferences=kept)


def _checked(request: FoldRequest, summary: Snapshot, span: SummaryRequest) -> tuple[Snapshot, int]:
    """Every snapshot is checked against its span; the rules summarizer's own needs no second reading."""
    if type(request.summarizer) is RulesSummarizer:
        return summary, 0
    checked = check_snapshot(summary, span.messages, numbers=span.numbers)
    return checked.snapshot, checked.restored


def _covers(context: _Context, request: FoldRequest, positions: Sequence[int]) -> tuple[int, int] | None:
    """First and last transcript numbers of the messages a snapshot stands for (None if only old snapshots)."""
    if not positions:
        return None
    numbers = _numbers(context, request, [positions[0], positions[-1]])
    return numbers[0], numbers[1]


def _data_positions(head: list[Message]) -> list[int]:
    """Positions in `head` of everything but earlier snapshot messages and their acknowledgements."""
    return [
        i
        for i, m in enumerate(head)
        if not is_snapshot_message(m) and not (i > 0 and is_snapshot_message(head[i - 1]) and m.role == "assistant")
    ]


def _as_data(message: Message) -> Message:
    """docs/design.md §12: snapshot-like tags in text we did not write are made inert before any summarizer reads it."""
    if isinstance(message.content, str):
        text = snap.neutralise(quoted_snapshots.without_quoted_snapshots(message.content))
        return message if text == message.content else message.evolve(content=text)
    if isinstance(message.content, tuple):
        parts = tuple(
            FrozenDict({**p, "text": snap.neutralise(quoted_snapshots.without_quoted_snapshots(str(p["text"])))})
            if p.get("type") == "text"
            else p
            for p in message.content
        )
        return message.evolve(content=parts)
    return message


def _with_history_head(summary: Snapshot, head: Sequence[Message], numbers: Sequence[int]) -> Snapshot:
    """The sections of the snapshot an imported history starts with (another tool compressed it: its first
    message is that snapshot alone), kept labelled. Any other snapshot in a message is a quote: data about
    that message, which the summarizers saw as one line (`_as_data`)."""
    for message, number in zip(head, numbers, strict=False):
        if number <= 2 and message.role == "user" and quoted_snapshots.is_history_head(message.text):
            quoted = quoted_snapshots.quoted_sections(message.text)
            if quoted is not None:
                summary = quoted_snapshots.absorb(summary, quoted)
    return summary


def _rebuild(systems: list[Message], snapshot: Snapshot, tail: list[Message]) -> list[Message]:
    """Step 4: system prompts + snapshot + acknowledgement + kept tail, checked against docs/design.md §3."""
    snapshot_message = snap.snapshot_message(snap.render_message_text(snapshot))
    bridge = [Message.assistant(snap.ACKNOWLEDGEMENT)] if tail and tail[0].role == "user" else []
    folded = [*systems, snapshot_message, *bridge, *tail]
    problems = violations(folded, systems)
    if problems:
        raise FoldFailed("the folded context broke an invariant: " + "; ".join(problems))
    return folded


def _snapshot_tokens(counter: TokenCounter, candidate: Snapshot) -> int:
    return counter.count_message(snap.snapshot_message(snap.render_message_text(candidate)))


def _number(request: FoldRequest, message: Message, position: int) -> int:
    """A message's 1-based number in the conversation's transcript (the numbers users see)."""
    if message.key is None:
        return position + 1
    if request.numbers is not None:
        return request.numbers.get(message.key, message.key + 1)
    return message.key + 1


def _numbers(context: _Context, request: FoldRequest, positions: Sequence[int]) -> tuple[int, ...]:
    offset = len(context.systems)
    return tuple(_number(request, context.rest[i], offset + i) for i in positions)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
