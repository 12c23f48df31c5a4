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
    prompt_tokens: int
    completion_tokens: int
    cost: float


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
    """The request waits for its turn (the local server answers one at a time); it starts after this."""

    reason: str


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
