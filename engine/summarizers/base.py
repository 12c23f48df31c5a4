"""The `Summarizer` protocol every summarizer (rules, LLM, ...) implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..messages import Message
from ..snapshot import Snapshot


@dataclass(frozen=True)
class SummaryRequest:
    """What to summarize: `messages` (no system prompts), plus context the snapshot must carry."""

    messages: Sequence[Message]
    pinned: Sequence[str] = field(default_factory=tuple)
    focus: str | None = None
    output_budget: int = 4000
    """Tokens the rendered snapshot may take; the fold pipeline enforces it afterwards too."""


class Summarizer(Protocol):
    @property
    def name(self) -> str:
        """Stored with the fold: `rules` or `llm:<model>`."""
        ...

    @property
    def input_budget(self) -> int | None:
        """Largest input (tokens) one `summarize` call takes; None means any size."""
        ...

    def summarize(self, request: SummaryRequest) -> Snapshot: ...

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        """Merge partial snapshots of consecutive chunks (oldest first) into one."""
        ...
