"""The `Summarizer` protocol every summarizer (rules, LLM, ...) implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
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
    numbers: Sequence[int] | None = None
    """The transcript number of each message (parallel to `messages`), named by the snapshot's items.

    None numbers them by position (1-based): a caller that hands over a bare list of messages (a test, a
    bench) means those; the fold pipeline always passes the numbers the user sees (`foldchat compress`
    on a JSON array: positions in that array)."""

    def numbered(self) -> list[int]:
        if self.numbers is None:
            return list(range(1, len(self.messages) + 1))
        if len(self.numbers) != len(self.messages):
            raise ValueError(f"{len(self.numbers)} numbers for {len(self.messages)} messages")
        return list(self.numbers)

    def part(self, start: int, stop: int) -> SummaryRequest:
        """The same request for `messages[start:stop]`, each keeping its number."""
        return replace(self, messages=list(self.messages[start:stop]), numbers=self.numbered()[start:stop])

    def with_messages(self, messages: Sequence[Message]) -> SummaryRequest:
        """The same request for stand-ins of its messages (condensed, one for one), keeping their numbers."""
        return replace(self, messages=list(messages), numbers=self.numbered())


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
