"""One streaming call path for every model, hosted or local: `litellm.acompletion` (DESIGN §8, issue 4).

`stream_reply` yields `ProviderEvent`s: text, reasoning and tool-call deltas, usage, retries, and
exactly one final `Finished` or `Failed`. Transient failures (429 honouring Retry-After, 5xx,
timeouts, dropped connections, garbled streams) are retried with backoff as long as nothing was
streamed yet; a failure after text arrived ends the reply with what came, so nothing shown is lost.
Auth and bad-request errors are never retried and become one actionable line.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .lazy import load_litellm
from .messages import Message, ToolCall


@dataclass(frozen=True)
class ModelTarget:
    """A model resolved from a name or alias: how to call it and what it costs."""

    name: str
    litellm_model: str
    window: int
    api_base: str | None = None
    api_key_env: str | None = None
    max_output_tokens: int | None = None
    input_cost_per_token: float = 0.0
    output_cost_per_token: float = 0.0
    is_local: bool = False
    temperature: float | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)

    @property
    def provider(self) -> str:
        return self.litellm_model.split("/", 1)[0] if "/" in self.litellm_model else "openai"

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        if self.is_local:
            return 0.0
        return prompt_tokens * self.input_cost_per_token + completion_tokens * self.output_cost_per_token


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
class Finished:
    message: Message
    finish_reason: str | None
    usage: UsageReport | None


@dataclass(frozen=True)
class Failed:
    error: str
    partial: Message | None
    retryable: bool = False


ProviderEvent = TextDelta | ReasoningDelta | ToolCallDelta | UsageReport | Retrying | Finished | Failed
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

    if target.is_local or target.api_base or base_from_environment(target) is not None:
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
    if target.api_key_env and os.environ.get(target.api_key_env):
        kwargs["api_key"] = os.environ[target.api_key_env]
    elif target.is_local or ((target.api_base or base_from_environment(target)) and not _standard_key_set(target)):
        # local and self-hosted servers need no key, but the OpenAI client refuses to send without one
        kwargs["api_key"] = "foldchat-no-key"
    return kwargs


def call_arguments(target: ModelTarget, messages: list[dict[str, Any]], timeout: float) -> dict[str, Any]:
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
    return kwargs


async def stream_reply(
    target: ModelTarget,
    messages: list[dict[str, Any]],
    *,
    timeout: float = 120.0,
    max_retries: int = 3,
    sleep: Sleep = asyncio.sleep,
) -> AsyncIterator[ProviderEvent]:
    """Stream one reply from `target`; see the module docstring for the event contract."""
    key = missing_key(target)
    if key is not None:
        yield Failed(f"{key} is not set: export it, or pick another model (--model local)", None)
        return
    litellm = load_litellm()
    attempt = 0
    while True:
        acc = _Accumulator()
        usage: UsageReport | None = None
        finish_reason: str | None = None
        try:
            response = await litellm.acompletion(**call_arguments(target, messages, timeout))
            async for chunk in response:
                for event in _chunk_events(chunk, acc):
                    yield event
                finish_reason = _finish_reason(chunk) or finish_reason
                chunk_usage = getattr(chunk, "usage", None)
                if chunk_usage and getattr(chunk_usage, "prompt_tokens", None) is not None:
                    usage = UsageReport(
                        int(chunk_usage.prompt_tokens or 0),
                        int(chunk_usage.completion_tokens or 0),
                        target.cost(int(chunk_usage.prompt_tokens or 0), int(chunk_usage.completion_tokens or 0)),
                    )
        except asyncio.CancelledError:
            raise
        except Exception as error:
            problem = classify(error, target)
            if problem.retryable and not acc.has_output and attempt < max_retries:
                delay = problem.retry_after if problem.retry_after is not None else backoff(attempt)
                attempt += 1
                yield Retrying(attempt, delay, problem.message)
                await sleep(delay)
                continue
            partial = acc.message() if acc.has_output else None
            suffix = " (partial reply kept)" if partial is not None else ""
            yield Failed(problem.message + suffix, partial, problem.retryable)
            return
        if usage is not None:
            yield usage
        yield Finished(acc.message(), finish_reason, usage)
        return


def _finish_reason(chunk: Any) -> str | None:
    choices = getattr(chunk, "choices", None) or []
    return getattr(choices[0], "finish_reason", None) if choices else None


def _chunk_events(chunk: Any, acc: _Accumulator) -> list[ProviderEvent]:
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


def backoff(attempt: int) -> float:
    delay: float = min(8.0, 0.5 * 2**attempt) * (0.8 + 0.4 * random.random())
    return delay


@dataclass(frozen=True)
class Problem:
    message: str
    retryable: bool
    retry_after: float | None = None


def _retry_after(error: Exception) -> float | None:
    for source in (getattr(error, "response", None), error):
        headers = getattr(source, "headers", None) or getattr(source, "litellm_response_headers", None)
        if headers is None:
            continue
        try:
            value = headers.get("retry-after")
        except AttributeError:
            continue
        if value is not None:
            try:
                return max(0.0, min(60.0, float(value)))
            except ValueError:
                return None
    return None


def _short(error: Exception) -> str:
    text = str(getattr(error, "message", None) or error)
    for prefix in ("litellm.", "OpenAIException - ", "AnthropicException - "):
        text = text.replace(prefix, "")
    line = " ".join(text.split())
    return line[:240] + ("…" if len(line) > 240 else "")


def classify(error: Exception, target: ModelTarget) -> Problem:
    """What went wrong, in one actionable line, and whether trying again may help."""
    litellm = load_litellm()
    name = target.name
    if isinstance(error, litellm.AuthenticationError):
        env = target.api_key_env or missing_key(target) or "the provider's API key"
        return Problem(f"{name}: authentication failed: check {env}", False)
    if isinstance(error, litellm.NotFoundError):
        return Problem(f"model {target.litellm_model} does not exist for provider {target.provider}", False)
    if isinstance(error, litellm.ContextWindowExceededError):
        return Problem(f"{name}: the conversation is larger than the model's window; /resummarize folds it", False)
    if isinstance(error, litellm.RateLimitError):
        return Problem(f"{name}: rate limited (429)", True, _retry_after(error))
    if isinstance(error, litellm.Timeout):
        return Problem(f"{name}: no answer within the timeout", True)
    if isinstance(error, litellm.APIConnectionError):
        return Problem(f"{name}: connection failed ({_short(error)})", True)
    if isinstance(error, litellm.BadRequestError | litellm.UnprocessableEntityError | litellm.PermissionDeniedError):
        return Problem(f"{name}: request rejected: {_short(error)}", False)
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and status >= 500:
        return Problem(f"{name}: server error {status}", True)
    if isinstance(error, litellm.InternalServerError | litellm.ServiceUnavailableError | litellm.BadGatewayError):
        return Problem(f"{name}: server error", True)
    if isinstance(error, ConnectionError | TimeoutError | OSError):
        return Problem(f"{name}: connection failed ({error})", True)
    if isinstance(error, litellm.APIError):
        return Problem(f"{name}: {_short(error)}", True)
    return Problem(f"{name}: {type(error).__name__}: {_short(error)}", False)
