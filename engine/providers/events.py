"""What a reply yields while it streams: deltas, usage, retries, waits, notices, and exactly one final
`Finished` or `Failed` (see `stream.stream_reply`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..messages import Message


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True)
class UsageReport:
    """What one request used, as the provider reported it, priced at litellm's prices (pricing.py)."""

    prompt_tokens: int
    completion_tokens: int
    cost: float
    cached_tokens: int = 0
    """Of `prompt_tokens`, read from the provider's prompt cache (billed at its cache-read price)."""
    cache_write_tokens: int = 0
    """Of `prompt_tokens`, written to the cache (Anthropic bills these above the input price)."""
    reasoning_tokens: int = 0
    uncached_cost: float | None = None
    """The same request priced as if nothing were cached: what caching saved is the difference."""

    @property
    def full_cost(self) -> float:
        return self.cost if self.uncached_cost is None else self.uncached_cost


@dataclass(frozen=True)
class Retrying:
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class Notice:
    """Something the user should know about the request being sent (e.g. what was left out of it)."""

    text: str


@dataclass(frozen=True)
class Waiting:
    """The request waits: for its turn (the local server answers one at a time), or for the model to read
    its context (said as it reads: "read 512/4,096 tokens"); the reply starts after this."""

    reason: str
    left: float | None = None
    """Seconds still to wait at the rate measured so far (a face counts them down), when known."""


@dataclass(frozen=True)
class Finished:
    message: Message
    finish_reason: str | None
    usage: UsageReport | None


@dataclass(frozen=True)
class Failed:
    error: str
    partial: Message | None
    retryable: bool = False


class StreamEndedEarly(Exception):
    """The stream closed without a finish reason: the reply is incomplete."""


class EmptyReply(Exception):
    """The stream finished properly but carried no text, reasoning or tool call."""


ProviderEvent = (
    TextDelta | ReasoningDelta | ToolCallDelta | UsageReport | Retrying | Waiting | Notice | Finished | Failed
)
