"""A direct streaming client for the embedded model's server, so talking to it needs no litellm (issue 12).

`import litellm` costs seconds and ~170 MB; a process that only talks to the local model pays none of
it. The server speaks OpenAI's chat-completions wire format, which this module speaks too: one POST to
`{api_base}/chat/completions` with `stream: true`, then server-sent events, one JSON chunk per `data:`
line, closed by `data: [DONE]`. Chunks come out with attribute access, the shape litellm's chunks have,
so `providers.stream_reply` reads both alike: retries, deadlines, partial replies and the error
mapping (`provider_errors.classify`) are the same code for both paths.

A non-200 answer raises `LocalHTTPError` with the server's status, message and headers; transport
faults leave as httpx's own exceptions, which `classify` reads like those under litellm's.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .providers import ModelTarget

DONE = "[DONE]"


class LocalHTTPError(Exception):
    """The local server answered with an error status instead of a stream."""

    def __init__(self, status_code: int, message: str, code: str | None, headers: Mapping[str, str]) -> None:
        super().__init__(f"{status_code}: {message}")
        self.status_code = status_code
        self.message = message
        self.code = code
        self.headers = headers


def request_body(
    target: ModelTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """What litellm would send for `target` (model name without its `openai/` prefix, our sampling)."""
    body: dict[str, Any] = {
        "model": target.litellm_model.split("/", 1)[-1],
        # as litellm sends them: no null fields (llama-cpp-python's server refuses an assistant `content: null`)
        "messages": [{key: value for key, value in m.items() if value is not None} for m in messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if target.max_output_tokens:
        body["max_tokens"] = target.max_output_tokens
    if target.temperature is not None:
        body["temperature"] = target.temperature
    body.update(target.extra_body)  # e.g. repeat_penalty: litellm merges extra_body into the JSON the same way
    if tools:  # only when offered (the recall tool is never offered to the local model today)
        body["tools"] = tools
    return body


def chunk_from_json(data: str) -> Any:
    """One `data:` payload as nested objects with attribute access (a dict key `x` reads as `.x`)."""
    return json.loads(data, object_hook=lambda fields: SimpleNamespace(**fields))


def _error_of(raw: bytes) -> tuple[str, str | None]:
    """The message and code of an OpenAI-style error body, or the body itself when it is not one."""
    try:
        error = json.loads(raw).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, Mapping):
        return str(error.get("message") or ""), error.get("code") or error.get("type")
    return raw.decode("utf-8", "replace").strip()[:500], None


async def stream_chunks(
    target: ModelTarget, messages: list[dict[str, Any]], timeout: float, tools: list[dict[str, Any]] | None = None
) -> AsyncGenerator[Any, None]:
    """The chunks of one streamed reply from the local server; `timeout` bounds each wait for data."""
    import httpx

    if target.api_base is None:
        raise LocalHTTPError(503, "the local model server is not running", None, {})
    headers = {"Authorization": f"Bearer {target.api_key or 'foldchat-no-key'}", "Accept": "text/event-stream"}
    url = f"{target.api_base.rstrip('/')}/chat/completions"
    # trust_env off: a proxy from the user's shell must not see the session key (the server is on loopback).
    # The server speaks plain HTTP: with nothing to verify, no CA bundle is loaded (44 ms of CPU per reply).
    tls = url.startswith("https:")
    client = httpx.AsyncClient(timeout=httpx.Timeout(timeout), trust_env=False, verify=tls)
    async with (
        client,
        client.stream("POST", url, json=request_body(target, messages, tools), headers=headers) as response,
    ):
        if response.status_code != 200:
            message, code = _error_of(await response.aread())
            raise LocalHTTPError(response.status_code, message, code, response.headers)
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue  # blank separators, comments (": ping") and event names carry no chunk
            data = line[len("data:") :].strip()
            if data == DONE:
                return
            yield chunk_from_json(data)
