"""A head too big for one summarizer call, summarized in chunks that fit it and then consolidated
(docs/design.md §6, step 3): chunks cut only where no tool result is parted from its call, partial
snapshots merged in batches, at most `MAX_CONSOLIDATION_DEPTH` levels deep, then deterministically."""

from __future__ import annotations

from collections.abc import Sequence

from .. import snapshot as snap
from ..events import EventSink, FoldProgress
from ..messages import Message
from ..snapshot import Snapshot
from ..summarizers.base import Summarizer, SummaryRequest
from ..tokens import TokenCounter

MAX_CONSOLIDATION_DEPTH = 5


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
    start = 0
    for number, chunk in enumerate(chunks, start=1):
        emit(FoldProgress("summarize", number - 1, len(chunks), f"chunk {number}/{len(chunks)}"))
        parts.append(summarizer.summarize(request.part(start, start + len(chunk))))  # each keeps its numbers
        start += len(chunk)
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
