"""The fold pipeline (DESIGN §6): repair, decide, condense, split, summarize, rebuild, verify.

`fold_context` is the one entry point: the CLI's `compress`, `foldchat ask` and the TUI all call it.
It never mutates its input and never loses a message: it returns a new context plus a `FoldReport`;
on any failure inside the pipeline the caller keeps the original context.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from . import snapshot as snap
from .alternation import current_turn_start, repair
from .condense import condense
from .errors import CurrentTurnTooLarge, FoldFailed
from .events import EventSink, FoldCompleted, FoldProgress, FoldStarted, ignore_events
from .events import FoldFailed as FoldFailedEvent
from .invariants import violations
from .messages import Message
from .policy import Decision, FoldHistory, FoldPolicy, Trigger, decide
from .snapshot import Snapshot
from .snapshot_fit import fit_snapshot
from .split import safe_split
from .summarizers.base import Summarizer, SummaryRequest
from .tokens import TokenCounter

MAX_CONSOLIDATION_DEPTH = 5


@dataclass(frozen=True)
class FoldReport:
    """What a fold did, with counts from the target model's tokenizer."""

    compressed: bool
    reason: str
    tokens_before: int
    tokens_after: int
    window: int
    reserved_output: int
    trigger_tokens: int
    target_tokens: int
    folded_messages: int = 0
    kept_messages: int = 0
    summarizer: str = ""
    duration_ms: float = 0.0
    trigger: str | None = None
    snapshot_tokens: int = 0
    chunks: int = 0
    consolidation_depth: int = 0
    split_phase: int = 0
    covers: tuple[int, int] | None = None
    condensed_messages: tuple[int, ...] = ()
    repairs: tuple[str, ...] = ()
    over_target: bool = False
    pinned_kept: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


def is_snapshot_message(message: Message) -> bool:
    return message.role == "user" and snap.SNAPSHOT_OPEN in message.text


def fold_context(messages: Sequence[Message], request: FoldRequest) -> FoldResult:
    """Fold `messages` if the policy (or `request.force`) says so; see the module docstring."""
    started = time.perf_counter()
    counter, window, policy = request.counter, request.window, request.policy
    repaired = repair(messages)
    context = repaired.messages
    tokens_before = counter.count(context)
    reserved = request.reserved_output
    systems = [m for m in context if m.role == "system"]
    rest = context[len(systems) :]
    base = {
        "tokens_before": tokens_before,
        "window": window,
        "reserved_output": reserved,
        "trigger_tokens": policy.trigger_at(window),
        "target_tokens": policy.target_at(window),
        "repairs": tuple(repaired.notes),
        "summarizer": request.summarizer.name,
    }

    def unchanged(reason: str) -> FoldResult:
        report = FoldReport(
            compressed=False,
            reason=reason,
            tokens_after=tokens_before,
            kept_messages=len(context),
            duration_ms=_ms(started),
            **base,  # type: ignore[arg-type]
        )
        return FoldResult(list(context), report)

    keep_from = current_turn_start(rest)
    turn_tokens = sum(counter.count_message(m) for m in rest[keep_from:])
    floor = counter.count(systems + rest[keep_from:]) + reserved if rest else 0
    if floor > window:
        raise CurrentTurnTooLarge(
            f"the current turn alone needs {floor:,} tokens (with {reserved:,} reserved for the reply) "
            f"but the window is {window:,}: shorten the last message or pick a model with a larger window"
        )
    decision = (
        Decision(True, "forced fold", request.trigger or Trigger.MANUAL)
        if request.force
        else decide(
            policy,
            usage=tokens_before + reserved,
            window=window,
            message_count=len(rest),
            history=request.history,
        )
    )
    if not decision.fold:
        return unchanged(decision.reason)
    if keep_from == 0:
        return unchanged("nothing to fold: the context holds only the current turn")
    trigger = request.trigger or decision.trigger or Trigger.AUTO
    request.on_event(FoldStarted(str(trigger), len(context), tokens_before))
    try:
        return _fold(context, systems, rest, keep_from, turn_tokens, request, decision, trigger, base, started)
    except Exception as error:
        request.on_event(FoldFailedEvent(str(error)))
        raise


def _fold(
    context: list[Message],
    systems: list[Message],
    rest: list[Message],
    keep_from: int,
    turn_tokens: int,
    request: FoldRequest,
    decision: Decision,
    trigger: Trigger,
    base: dict[str, Any],
    started: float,
) -> FoldResult:
    counter, window, policy, emit = request.counter, request.window, request.policy, request.on_event
    reserved = request.reserved_output
    target = policy.target_at(window)

    # 1. oversized messages before the current turn are condensed in the context
    threshold = policy.message_threshold(window)
    condensed: list[int] = []
    rest = list(rest)
    for index in range(keep_from):
        message = rest[index]
        if message.role in ("tool", "assistant") and (tokens := counter.count_message(message)) > threshold:
            rest[index] = condense(message, tokens, threshold // 2)
            condensed.append(message.key if message.key is not None else len(systems) + index)
    if condensed:
        emit(FoldProgress("condense", len(condensed), len(condensed)))

    # 2. split: the tail's budget leaves room for the snapshot under the target
    counts = [counter.count_message(m) for m in rest]
    systems_tokens = sum(counter.count_message(m) for m in systems)
    snapshot_budget = max(64, int(policy.snapshot_ratio * window))
    overhead = counter.count_message(Message.assistant(snap.ACKNOWLEDGEMENT)) + 3
    tail_budget = min(int(policy.keep_ratio * window), target - reserved - systems_tokens - snapshot_budget - overhead)
    split = safe_split(rest, counts, max(tail_budget, turn_tokens), keep_from)
    if split is None:
        raise FoldFailed("no safe split point was found")
    emit(FoldProgress("split", 1, 1, f"phase {split.phase}: folding {split.index} messages"))
    head, tail = rest[: split.index], rest[split.index :]

    # 3. summarize the head (an earlier snapshot in it is merged, never duplicated)
    previous = [snap.parse(m.text) for m in head if is_snapshot_message(m)]
    to_summarize = [
        m
        for i, m in enumerate(head)
        if not is_snapshot_message(m) and not (i > 0 and is_snapshot_message(head[i - 1]) and m.role == "assistant")
    ]
    summary_request = SummaryRequest(
        messages=to_summarize,
        pinned=tuple(request.pinned),
        focus=request.focus,
        output_budget=snapshot_budget,
    )
    summary, chunks, depth = summarize_chunked(summary_request, request.summarizer, counter, emit)
    base["summarizer"] = request.summarizer.name  # a fallback renames it ("rules (llm:x failed: ...)")
    for earlier in reversed([p for p in previous if p is not None]):
        summary = snap.merge(earlier, summary)
    first_key = head[0].key if head[0].key is not None else len(systems)
    last_key = head[-1].key if head[-1].key is not None else len(systems) + split.index - 1
    summary.covers = f"{first_key}..{last_key}"
    summary.tokens_before = base["tokens_before"]
    summary.pinned = list(dict.fromkeys([*summary.pinned, *request.pinned]))

    # 4. rebuild within the budget: the snapshot shrinks if the tail left it less room
    room = target - reserved - systems_tokens - sum(counts[split.index :]) - overhead
    budget = max(64, min(snapshot_budget, room))
    emit(FoldProgress("rebuild", 0, 1))

    def snapshot_size(candidate: Snapshot) -> int:
        return counter.count_message(Message.user(snap.render_message_text(candidate)))

    fitted = fit_snapshot(summary, budget, snapshot_size)
    snapshot_message = Message.user(snap.render_message_text(fitted))
    bridge = [Message.assistant(snap.ACKNOWLEDGEMENT)] if tail and tail[0].role == "user" else []
    folded = [*systems, snapshot_message, *bridge, *tail]
    problems = violations(folded, systems)
    if problems:
        raise FoldFailed("the folded context broke an invariant: " + "; ".join(problems))
    tokens_after = counter.count(folded)
    if tokens_after >= base["tokens_before"]:
        # a snapshot bigger than what it replaces helps nobody: keep the context as it is
        report = FoldReport(
            compressed=False,
            reason=f"folding would not make the context smaller ({base['tokens_before']:,} → {tokens_after:,} tokens)",
            tokens_after=base["tokens_before"],
            kept_messages=len(context),
            duration_ms=_ms(started),
            **base,
        )
        emit(FoldCompleted(report))
        return FoldResult(list(context), report)
    pinned_kept = sum(1 for text in request.pinned if text in snapshot_message.text)
    report = FoldReport(
        compressed=True,
        reason=decision.reason,
        tokens_after=tokens_after,
        folded_messages=len(head),
        kept_messages=len(tail),
        duration_ms=_ms(started),
        trigger=str(trigger),
        snapshot_tokens=counter.count_message(snapshot_message),
        chunks=chunks,
        consolidation_depth=depth,
        split_phase=split.phase,
        covers=(first_key, last_key),
        condensed_messages=tuple(condensed),
        over_target=tokens_after + reserved > target,
        pinned_kept=(pinned_kept, len(request.pinned)),
        **base,
    )
    emit(FoldProgress("rebuild", 1, 1))
    emit(FoldCompleted(report))
    return FoldResult(folded, report, fitted, list(head))


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
