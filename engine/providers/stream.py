"""One streaming call path for every model: hosted ones through `litellm.acompletion` (docs/design.md §8),
the embedded local model through `local/stream.py` (its OpenAI-compatible server, no litellm import, which costs seconds).

`stream_reply` yields `ProviderEvent`s: text, reasoning and tool-call deltas, usage, retries, and
exactly one final `Finished` or `Failed`. Transient failures (429 honouring Retry-After, 5xx,
timeouts, dropped connections, garbled streams) are retried with backoff as long as nothing was
streamed yet; a failure after text arrived ends the reply with what came, so nothing shown is lost.
Auth and bad-request errors are never retried and become one actionable line.

A stream that stops without a finish reason ended early, whatever the HTTP status said (docs/design.md §9):
it is a `Failed` with the partial reply, never a `Finished`. So is a reply with nothing in it.

Time: `timeout` bounds each attempt's wait for data (so a stall mid-reply ends it); `deadline` bounds
the whole wait for the reply to *start*, every attempt and backoff included, so a hung provider costs
at most `deadline` seconds. Once text flows, only stalls end it: a long reply is never cut for being
long. Everything awaits asyncio, so cancelling the consuming task (Esc, Ctrl-C) stops the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..lazy import load_litellm
from ..local.prefix_warm import progress_note
from ..local.turns import WAITING, LocalTurn
from ..messages import Message, ToolCall
from .errors import Problem, backoff, classify
from .events import (
    EmptyReply,
    Failed,
    Finished,
    ProviderEvent,
    ReasoningDelta,
    Retrying,
    StreamEndedEarly,
    TextDelta,
    ToolCallDelta,
    UsageReport,
    Waiting,
)
from .pricing import priced
from .target import ModelTarget

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Accumulator:
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    thinking: list[str] = field(default_factory=list)
    signature: str | None = None

    @property
    def has_output(self) -> bool:
        return bool(self.text or self.reasoning or self.calls)

    def message(self) -> Message:
        calls = tuple(
            ToolCall(c.get("id") or f"call_{i}", c.get("name") or "unknown", c.get("arguments", ""))
            for i, c in sorted(self.calls.items())
        )
        extras: dict[str, Any] = {"reasoning_content": "".join(self.reasoning)} if self.reasoning else {}
        if self.signature:  # signed thinking (Anthropic) goes back to its provider as it came
            extras["thinking_blocks"] = [
                {"type": "thinking", "thinking": "".join(self.thinking), "signature": self.signature}
            ]
        text = "".join(self.text)
        return Message.from_dict(
            {
                "role": "assistant",
                "content": text if (text or not calls) else None,
                **({"tool_calls": [c.to_dict() for c in calls]} if calls else {}),
                **extras,
            }
        )


def missing_key(target: ModelTarget) -> str | None:
    """The environment variable a hosted model needs and does not have, if any."""
    import os

    if target.backend.on_this_machine or target.api_base or base_from_environment(target) is not None:
        return None  # a self-hosted or proxied endpoint decides itself whether it wants a key
    if target.api_key_env:
        return None if os.environ.get(target.api_key_env) else target.api_key_env
    try:
        status = load_litellm().validate_environment(model=target.litellm_model)
    except Exception:
        return None
    missing = status.get("missing_keys") or []
    return missing[0] if missing else None


def _standard_key_set(target: ModelTarget) -> bool:
    try:
        return bool(load_litellm().validate_environment(model=target.litellm_model).get("keys_in_environment"))
    except Exception:
        return False


def base_from_environment(target: ModelTarget) -> str | None:
    """litellm's standard `<PROVIDER>_API_BASE` / `_BASE_URL` variable for `target`, if set."""
    import os

    provider = target.provider.upper().replace("-", "_")
    return os.environ.get(f"{provider}_API_BASE") or os.environ.get(f"{provider}_BASE_URL")


def connection_arguments(target: ModelTarget) -> dict[str, Any]:
    """Model, base URL and key for a litellm call to `target` (streaming or not)."""
    import os

    kwargs: dict[str, Any] = {"model": target.litellm_model}
    if target.api_base:
        kwargs["api_base"] = target.api_base
    if target.api_key:
        kwargs["api_key"] = target.api_key
    elif target.api_key_env and os.environ.get(target.api_key_env):
        kwargs["api_key"] = os.environ[target.api_key_env]
    elif target.backend.on_this_machine or ((target.api_base or base_from_environment(target)) and not _standard_key_set(target)):
        # local and self-hosted servers need no key, but the OpenAI client refuses to send without one
        kwargs["api_key"] = "foldchat-no-key"
    return kwargs


def call_arguments(
    target: ModelTarget, messages: list[dict[str, Any]], timeout: float, tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        **connection_arguments(target),
        "messages": messages,
        "stream": True,
        "timeout": timeout,
        "num_retries": 0,  # retries are ours: we must not repeat a reply that already streamed
        "stream_options": {"include_usage": True},
    }
    if target.max_output_tokens:
        kwargs["max_tokens"] = target.max_output_tokens
    if target.temperature is not None:
        kwargs["temperature"] = target.temperature
    if target.extra_body:
        kwargs["extra_body"] = dict(target.extra_body)
    if tools:  # only when offered: the local model and models without tool calls never see the key
        kwargs["tools"] = tools
        # litellm routes any call with tools through its MCP gateway check, which imports the optional
        # `mcp` package (ModuleNotFoundError without litellm[mcp]); our tools are plain functions, so we
        # skip it with the flag litellm's own MCP handlers pass (filtered out of what is sent)
        kwargs["_skip_mcp_handler"] = True
    return kwargs


async def stream_reply(
    target: ModelTarget,
    messages: list[dict[str, Any]],
    *,
    timeout: float = 120.0,
    max_retries: int = 3,
    deadline: float | None = None,
    sleep: Sleep = asyncio.sleep,
    tools: list[dict[str, Any]] | None = None,
) -> AsyncIterator[ProviderEvent]:
    """Stream one reply from `target`, offering `tools` (OpenAI function tools) if given; see the module
    docstring for the event contract."""
    key = missing_key(target)
    if key is not None:
        yield Failed(f"{key} is not set: export it, or pick another model (--model local)", None)
        return
    if not target.backend.one_at_a_time:
        async for event in _stream(target, messages, timeout, max_retries, deadline, sleep, tools):
            yield event
        return
    turn = LocalTurn(target.api_base)  # the local server answers one request at a time (local/turns.py)
    if not turn.try_acquire():
        yield Waiting(WAITING)
        await turn.acquire()
    try:
        async for event in _stream(target, messages, timeout, max_retries, deadline, sleep, tools):
            yield event
    finally:
        turn.release()


async def _stream(
    target: ModelTarget,
    messages: list[dict[str, Any]],
    timeout: float,
    max_retries: int,
    deadline: float | None,
    sleep: Sleep,
    tools: list[dict[str, Any]] | None,
) -> AsyncIterator[ProviderEvent]:
    clock = _Deadline(deadline)
    attempt = 0
    while True:
        acc = _Accumulator()
        usage: UsageReport | None = None
        finish_reason: str | None = None
        wait = clock.cap(timeout)
        try:
            # until the first output arrives the deadline applies; nothing is yielded before that
            async with asyncio.timeout(clock.remaining) as start_guard:
                async with _opened_stream(target, messages, wait, tools) as response:
                    async for chunk in response:
                        events = _chunk_events(chunk, acc)
                        if acc.has_output:
                            start_guard.reschedule(None)
                        for event in events:
                            yield event
                        finish_reason = _finish_reason(chunk) or finish_reason
                        usage = _chunk_usage(chunk, target) or usage
            if not _really_finished(response, finish_reason):
                raise StreamEndedEarly()
            if not acc.has_output:
                raise EmptyReply()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            problem = classify(error, target, wait=wait, deadline=deadline, started=acc.has_output)
            if problem.retryable and not acc.has_output and attempt < max_retries:
                delay = problem.retry_after if problem.retry_after is not None else backoff(attempt)
                if clock.allows(delay):
                    attempt += 1
                    yield Retrying(attempt, delay, problem.message)
                    await sleep(delay)
                    continue
                problem = Problem(f"{problem.message}; gave up after {clock.elapsed:.0f} s (request_deadline)", True)
            partial = acc.message() if acc.has_output else None
            suffix = " (partial reply kept)" if partial is not None else ""
            yield Failed(problem.message + suffix, partial, problem.retryable)
            return
        if usage is not None:
            yield usage
        yield Finished(acc.message(), finish_reason, usage)
        return


@contextlib.asynccontextmanager
async def _opened_stream(
    target: ModelTarget, messages: list[dict[str, Any]], wait: float, tools: list[dict[str, Any]] | None
) -> AsyncIterator[Any]:
    """The reply's chunks: the local server's read directly, every other model's through litellm."""
    if target.backend.streams_directly:
        from ..local.stream import stream_chunks

        chunks = stream_chunks(target, messages, wait, tools)
        try:
            yield chunks
        finally:
            await chunks.aclose()  # the connection closes now, not when the generator is collected
        return
    response: AsyncIterable[Any] = await load_litellm().acompletion(**call_arguments(target, messages, wait, tools))
    yield response


def _chunk_usage(chunk: Any, target: ModelTarget) -> UsageReport | None:
    """The token usage a chunk reports (usually only the last one does), priced for `target`."""
    reported = getattr(chunk, "usage", None)
    if not reported or getattr(reported, "prompt_tokens", None) is None:
        return None
    return priced(reported, target)


class _Deadline:
    """The time left for a reply to start, across attempts; no deadline means only `timeout` applies."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.started = time.monotonic()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def remaining(self) -> float | None:
        return None if self.seconds is None else max(0.0, self.seconds - self.elapsed)

    def cap(self, timeout: float) -> float:
        remaining = self.remaining
        return timeout if remaining is None else max(0.1, min(timeout, remaining))

    def allows(self, delay: float) -> bool:
        remaining = self.remaining
        return remaining is None or delay < remaining


def _really_finished(response: Any, finish_reason: str | None) -> bool:
    """Whether the provider itself said the reply ended.

    litellm fills in `stop` when a stream simply closes, so its own record of a finish reason seen in
    the provider's chunks is what counts; without that record, the finish reason of the chunks does.
    """
    seen = getattr(response, "received_finish_reason", _UNKNOWN)
    if seen is _UNKNOWN:
        return finish_reason is not None
    return seen is not None


_UNKNOWN = object()


def _finish_reason(chunk: Any) -> str | None:
    choices = getattr(chunk, "choices", None) or []
    return getattr(choices[0], "finish_reason", None) if choices else None


def _chunk_events(chunk: Any, acc: _Accumulator) -> list[ProviderEvent]:
    progress = getattr(chunk, "prompt_progress", None)  # llama.cpp's server, while it reads the prompt
    if progress is not None and (note := progress_note(progress)):
        return [Waiting(*note)]
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return []
    delta = getattr(choices[0], "delta", None)
    if delta is None:
        return []
    events: list[ProviderEvent] = []
    text = getattr(delta, "content", None)
    if text:  # the first chunk of many servers carries only the role, with content None
        acc.text.append(text)
        events.append(TextDelta(text))
    reasoning = getattr(delta, "reasoning_content", None)
    if reasoning:
        acc.reasoning.append(reasoning)
        events.append(ReasoningDelta(reasoning))
    for block in getattr(delta, "thinking_blocks", None) or []:
        block = dict(block)
        acc.thinking.append(str(block.get("thinking") or ""))
        acc.signature = block.get("signature") or acc.signature
    for call in getattr(delta, "tool_calls", None) or []:
        index = getattr(call, "index", 0) or 0
        slot = acc.calls.setdefault(index, {"arguments": ""})
        function = getattr(call, "function", None)
        if getattr(call, "id", None):
            slot["id"] = call.id
        name = getattr(function, "name", None) if function else None
        if name:
            slot["name"] = name
        arguments = (getattr(function, "arguments", None) or "") if function else ""
        slot["arguments"] += arguments
        events.append(ToolCallDelta(index, getattr(call, "id", None), name, arguments))
    return events
