"""A summarizer that answers the same question once per fold.

A fold may ask its summarizer about the same span more than once: chunks before and after the split is
resized share their prefix, and an emergency fold's consolidation levels repeat batches. For a model,
each ask is a paid call and seconds of waiting (a 1,000 % emergency fold made 46 calls, 21 of them
byte-identical), so within one fold an identical request is answered from what was said before.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ..snapshot import Snapshot, render
from .base import Summarizer, SummaryRequest


class Remembering:
    """`inner`, with identical `summarize` and `consolidate` requests answered once."""

    def __init__(self, inner: Summarizer) -> None:
        self.inner = inner
        self.answers: dict[Hashable, Snapshot] = {}

    @property
    def name(self) -> str:
        return self.inner.name  # read late: a fallback renames itself after a failure

    @property
    def input_budget(self) -> int | None:
        return self.inner.input_budget

    def summarize(self, request: SummaryRequest) -> Snapshot:
        key = ("summarize", _request_key(request))
        if key not in self.answers:
            self.answers[key] = self.inner.summarize(request)
        return self.answers[key]

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        key = ("consolidate", tuple(render(part) for part in parts), _request_key(request, messages=False))
        if key not in self.answers:
            self.answers[key] = self.inner.consolidate(parts, request)
        return self.answers[key]


def _request_key(request: SummaryRequest, messages: bool = True) -> Hashable:
    texts = tuple((m.role, m.text, tuple((c.name, c.arguments) for c in m.tool_calls)) for m in request.messages)
    shown = texts if messages else len(texts)
    return (shown, tuple(request.numbered()), tuple(request.pinned), request.focus, request.output_budget)
