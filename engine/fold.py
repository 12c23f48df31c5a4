"""The fold pipeline (DESIGN §6): repair, decide, condense, split, summarize, rebuild, verify.

`fold_context` is the one entry point: the CLI's `compress`, `foldchat ask` and the TUI all call it.
It never mutates its input and never loses a message: it returns a new context plus a `FoldReport`;
on any failure inside the pipeline the caller keeps the original context. Each DESIGN §6 step is one
small function below, in pipeline order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from . import snapshot as snap
from .alternation import current_turn_start, repair
from .condense import condense_oversized
from .errors import CurrentTurnTooLarge, FoldFailed
from .events import EventSink, FoldCompleted, FoldProgress, FoldStarted, ignore_events
from .events import FoldFailed as FoldFailedEvent
from .invariants import violations
from .messages import Message
from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from .report import FoldReport
from .snapshot import Snapshot, is_snapshot_message
from .snapshot_fit import fit_snapshot
from .split import Split, safe_split
from .summarizers.base import Summarizer, SummaryRequest
from .tokens import TokenCounter

MAX_CONSOLIDATION_DEPTH = 5
MIN_SNAPSHOT_BUDGET = 64  # tokens: below this no snapshot says anything useful
ACK_OVERHEAD = 3  # tokens litellm adds around the acknowledgement beyond its text


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
    focus: str | None = None
    on_event: EventSink = ignore_events


@dataclass(frozen=True)
class _Context:
    """The repaired context a fold starts from, split into system prompts and the rest."""

    messages: list[Message]
    systems: list[Message]
    rest: list[Message]
    keep_from: int  # where the current turn starts in `rest`
    tokens_before: int
    repairs: tuple[str, ...]
    started: float


@dataclass(frozen=True)
class _Summary:
    snapshot: Snapshot
    chunks: int
    depth: int
    covers: tuple[int, int]


def fold_context(messages: Sequence[Message], request: FoldRequest) -> FoldResult:
    """Fold `messages` if the policy (or `request.force`) says so; see the module docstring."""
    context = _prepare(messages, request.counter)
    _check_current_turn_fits(context, request)
    decision = _decide(context, request)
    if not decision.fold:
        return _unchanged(context, request, decision.reason)
    if context.keep_from == 0:
        return _unchanged(context, request, "nothing to fold: the context holds only the current turn")
    trigger = request.trigger or decision.trigger or Trigger.AUTO
    request.on_event(FoldStarted(str(trigger), len(context.messages), context.tokens_before))
    try:
        return _fold(context, request, decision, trigger)
    except Exception as error:
        request.on_event(FoldFailedEvent(str(error)))
        raise


def _prepare(messages: Sequence[Message], counter: TokenCounter) -> _Context:
    started = time.perf_counter()
    repaired = repair(messages)
    context = repaired.messages
    systems = [m for m in context if m.role == "system"]
    rest = context[len(systems) :]
    return _Context(
        messages=list(context),
        systems=systems,
        rest=list(rest),
        keep_from=current_turn_start(rest),
        tokens_before=counter.count(context),
        repairs=tuple(repaired.notes),
        started=started,
    )


def _check_current_turn_fits(context: _Context, request: FoldRequest) -> None:
    """DESIGN §3.5: the current turn is never cut; say so clearly when it alone overflows the window."""
    if not context.rest:
        return
    reserved, window = request.reserved_output, request.window
    floor = request.counter.count(context.systems + context.rest[context.keep_from :]) + reserved
    if floor > window:
        raise CurrentTurnTooLarge(
            f"the current turn alone needs {floor:,} tokens (with {reserved:,} reserved for the reply) "
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
    """Steps 1-4 of DESIGN §6 on a context the policy decided to fold."""
    rest, condensed = _condense_step(context, request)
    counts = [request.counter.count_message(m) for m in rest]
    split = _split_step(context, request, rest, counts)
    head, tail = rest[: split.index], rest[split.index :]
    summary = _summarize_step(context, request, head)
    room = _snapshot_room(context, request, sum(counts[split.index :]))
    request.on_event(FoldProgress("rebuild", 0, 1))
    snapshot = fit_snapshot(summary.snapshot, room, lambda s: _snapshot_tokens(request.counter, s))
    folded = _rebuild(context.systems, snapshot, tail)
    tokens_after = request.counter.count(folded)
    if tokens_after >= context.tokens_before:
        # a snapshot bigger than what it replaces helps nobody: keep the context as it is
        reason = f"folding would not make the context smaller ({context.tokens_before:,} → {tokens_after:,} tokens)"
        report = _unchanged_report(context, request, reason)
        request.on_event(FoldCompleted(report))
        return FoldResult(list(context.messages), report)
    snapshot_message = folded[len(context.systems)]
    report = replace(
        _unchanged_report(context, request, decision.reason),
        compressed=True,
        tokens_after=tokens_after,
        folded_messages=len(head),
        kept_messages=len(tail),
        trigger=str(trigger),
        snapshot_tokens=request.counter.count_message(snapshot_message),
        chunks=summary.chunks,
        consolidation_depth=summary.depth,
        split_phase=split.phase,
        covers=summary.covers,
        condensed_messages=tuple(condensed),
        over_target=tokens_after + request.reserved_output > request.policy.target_at(request.window),
        pinned_kept=(sum(1 for text in request.pinned if text in snapshot_message.text), len(request.pinned)),
    )
    request.on_event(FoldProgress("rebuild", 1, 1))
    request.on_event(FoldCompleted(report))
    return FoldResult(folded, report, snapshot, list(head))


def _condense_step(context: _Context, request: FoldRequest) -> tuple[list[Message], list[int]]:
    """Step 1: oversized messages before the current turn are condensed in the context.

    Returns the new messages and the condensed ones' transcript ids (positions when unstored).
    """
    threshold = request.policy.message_threshold(request.window)
    result = condense_oversized(context.rest, context.keep_from, request.counter, threshold)
    offset = len(context.systems)
    keys = [_key(context.rest[i], offset + i) for i in result.positions]
    if keys:
        request.on_event(FoldProgress("condense", len(keys), len(keys)))
    return result.messages, keys


def _split_step(context: _Context, request: FoldRequest, rest: list[Message], counts: list[int]) -> Split:
    """Step 2: the tail's budget leaves room for the snapshot under the target."""
    turn_tokens = sum(counts[context.keep_from :])
    tail_budget = min(
        int(request.policy.keep_ratio * request.window),
        _under_target(context, request) - _snapshot_budget(request) - _ack_tokens(request.counter),
    )
    split = safe_split(rest, counts, max(tail_budget, turn_tokens), context.keep_from)
    if split is None:
        raise FoldFailed("no safe split point was found")
    request.on_event(FoldProgress("split", 1, 1, f"phase {split.phase}: folding {split.index} messages"))
    return split


def _summarize_step(context: _Context, request: FoldRequest, head: list[Message]) -> _Summary:
    """Step 3: summarize the head; an earlier snapshot in it is merged, never duplicated."""
    previous = [parsed for m in head if is_snapshot_message(m) and (parsed := snap.parse(m.text)) is not None]
    summary_request = SummaryRequest(
        messages=_without_snapshots(head),
        pinned=tuple(request.pinned),
        focus=request.focus,
        output_budget=_snapshot_budget(request),
    )
    summary, chunks, depth = summarize_chunked(summary_request, request.summarizer, request.counter, request.on_event)
    for earlier in reversed(previous):
        summary = snap.merge(earlier, summary)
    offset = len(context.systems)
    covers = (_key(head[0], offset), _key(head[-1], offset + len(head) - 1))
    summary = summary.model_copy(
        update={
            "covers": f"{covers[0]}..{covers[1]}",
            "tokens_before": context.tokens_before,
            "pinned": list(dict.fromkeys([*summary.pinned, *request.pinned])),
        }
    )
    return _Summary(summary, chunks, depth, covers)


def _without_snapshots(head: list[Message]) -> list[Message]:
    """The head minus earlier snapshot messages and the acknowledgements that follow them."""
    return [
        m
        for i, m in enumerate(head)
        if not is_snapshot_message(m) and not (i > 0 and is_snapshot_message(head[i - 1]) and m.role == "assistant")
    ]


def _rebuild(systems: list[Message], snapshot: Snapshot, tail: list[Message]) -> list[Message]:
    """Step 4: system prompts + snapshot + acknowledgement + kept tail, checked against DESIGN §3."""
    snapshot_message = Message.user(snap.render_message_text(snapshot))
    bridge = [Message.assistant(snap.ACKNOWLEDGEMENT)] if tail and tail[0].role == "user" else []
    folded = [*systems, snapshot_message, *bridge, *tail]
    problems = violations(folded, systems)
    if problems:
        raise FoldFailed("the folded context broke an invariant: " + "; ".join(problems))
    return folded


def _snapshot_budget(request: FoldRequest) -> int:
    return max(MIN_SNAPSHOT_BUDGET, int(request.policy.snapshot_ratio * request.window))


def _under_target(context: _Context, request: FoldRequest) -> int:
    """Tokens the snapshot and the tail may share: the target minus the reply reserve and system prompts."""
    systems_tokens = sum(request.counter.count_message(m) for m in context.systems)
    return request.policy.target_at(request.window) - request.reserved_output - systems_tokens


def _snapshot_room(context: _Context, request: FoldRequest, tail_tokens: int) -> int:
    """The snapshot's budget once the tail is chosen: it shrinks if the tail left it less room."""
    room = _under_target(context, request) - tail_tokens - _ack_tokens(request.counter)
    return max(MIN_SNAPSHOT_BUDGET, min(_snapshot_budget(request), room))


def _ack_tokens(counter: TokenCounter) -> int:
    return counter.count_message(Message.assistant(snap.ACKNOWLEDGEMENT)) + ACK_OVERHEAD


def _snapshot_tokens(counter: TokenCounter, candidate: Snapshot) -> int:
    return counter.count_message(Message.user(snap.render_message_text(candidate)))


def _key(message: Message, position: int) -> int:
    """A message's transcript id, or its position in the context when it was never stored."""
    return message.key if message.key is not None else position


def chunk_messages(messages: Sequence[Message], counts: Sequence[int], budget: int | None) -> list[list[Message]]:
    """Consecutive groups of at most `budget` tokens, cut only where no tool result is separated."""
    if budget is None or sum(counts) <= budget:
        return [list(messages)]
    chunks: list[list[Message]] = [[]]
    size = 0
    for message, count in zip(messages, counts, strict=True):
        if chunks[-1] and size + count > budget and message.role != "tool":
            chunks.append([])
            size = 0
        chunks[-1].append(message)
        size += count
    return chunks


def summarize_chunked(
    request: SummaryRequest, summarizer: Summarizer, counter: TokenCounter, emit: EventSink
) -> tuple[Snapshot, int, int]:
    """Summarize in chunks that fit the summarizer, then consolidate; returns (snapshot, chunks, depth)."""
    counts = [counter.count_message(m) for m in request.messages]
    chunks = chunk_messages(request.messages, counts, summarizer.input_budget)
    parts: list[Snapshot] = []
    for number, chunk in enumerate(chunks, start=1):
        emit(FoldProgress("summarize", number - 1, len(chunks), f"chunk {number}/{len(chunks)}"))
        parts.append(summarizer.summarize(_with_messages(request, chunk)))
    emit(FoldProgress("summarize", len(chunks), len(chunks)))
    if len(parts) == 1:
        return parts[0], 1, 0
    merged, depth = consolidate(parts, request, summarizer, counter, emit, depth=1)
    return merged, len(chunks), depth


def consolidate(
    parts: list[Snapshot],
    request: SummaryRequest,
    summarizer: Summarizer,
    counter: TokenCounter,
    emit: EventSink,
    depth: int,
) -> tuple[Snapshot, int]:
    """Merge partial snapshots; batches that fit the summarizer, at most MAX_CONSOLIDATION_DEPTH levels."""
    emit(FoldProgress("consolidate", depth - 1, MAX_CONSOLIDATION_DEPTH, f"level {depth}"))
    budget = summarizer.input_budget
    if depth > MAX_CONSOLIDATION_DEPTH:
        return _deterministic_merge(parts), depth
    sizes = [counter.count_text(snap.render(p)) for p in parts]
    if budget is None or sum(sizes) <= budget:
        return summarizer.consolidate(parts, request), depth
    batches: list[list[Snapshot]] = [[]]
    size = 0
    for part, part_size in zip(parts, sizes, strict=True):
        if len(batches[-1]) >= 2 and size + part_size > budget:
            batches.append([])
            size = 0
        batches[-1].append(part)
        size += part_size
    merged = [summarizer.consolidate(batch, request) if len(batch) > 1 else batch[0] for batch in batches]
    if len(merged) == 1:
        return merged[0], depth
    return consolidate(merged, request, summarizer, counter, emit, depth + 1)


def _deterministic_merge(parts: Sequence[Snapshot]) -> Snapshot:
    merged = parts[0]
    for part in parts[1:]:
        merged = snap.merge(merged, part)
    return merged


def _with_messages(request: SummaryRequest, messages: Sequence[Message]) -> SummaryRequest:
    return SummaryRequest(messages, request.pinned, request.focus, request.output_budget)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
