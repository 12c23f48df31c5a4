"""A loopback OpenAI chat-completions server that can be told to misbehave.

It speaks the real wire format (POST /v1/chat/completions, `text/event-stream` chunks ending with
`data: [DONE]`), validates what OpenAI validates that matters to us (each assistant tool_calls
message answered by tool messages, tool_call_id at most 40 chars), and fails on demand:

    server.script = ["500", "429:1", "ok"]   # one behaviour per request, the last one repeats

Behaviours: ok, slow (a chunk every 0.1 s for ~10 s), 500, 429:<retry-after>, hang (no answer until
`release()` or 60 s), drop (a few chunks then the connection closes), garbage (malformed SSE), 401,
404, 400, nofinish (text, then the stream ends cleanly with neither a finish reason nor `[DONE]`),
empty (a 200 event stream with no events at all), stall (a few chunks, then silence until `release()`
or 60 s), blank (a well-formed stream that finishes with `stop` but carries no text), tool (the model
calls `tool_calls`: each (name, arguments JSON) streamed as OpenAI does, the id and name first, then
the arguments in pieces, ending with finish reason `tool_calls`), held (the reply's words one chunk
each, held after `hold_after` words until `answer_gate` is set, then the rest), repeat (one chunk's text
sent `REPEATS` times, identical, as a model caught in a loop does: litellm stops such a stream itself).

Usage (the last chunk of a stream that asked for it with `stream_options.include_usage`, and every
non-streamed answer) has OpenAI's shape: prompt_tokens, completion_tokens, total_tokens,
`prompt_tokens_details` {cached_tokens, audio_tokens} and `completion_tokens_details` {reasoning_tokens
(`reasoning_tokens`, counted in completion_tokens as OpenAI does), audio_tokens, accepted_ and
rejected_prediction_tokens}. By default the prompt is 11 tokens and nothing is cached. With
`approximate_usage = True`, prompt_tokens is the request's size in the fake's approximation (each
prompt unit, `tools` as one unit if any and then each message, counts `len(canonical JSON) // 4`, sorted
keys and no spaces: `prompt_units`) and cached_tokens follows OpenAI's automatic prompt cache: the
longest run of leading units the request shares with an earlier answered request to the same model
seen within `cache_ttl` seconds (300; `prompt_cache_retention: "24h"` keeps a prompt a day; a hit
restarts the earlier prompt's clock), in tokens, rounded down to a multiple of 128, and 0 under 1024.
Time is `server.clock()` (`time.monotonic` unless a test swaps it). `usages` keeps the usage of each
request answered to its end, whether or not the client asked to see it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from servers.loopback import LoopbackServer, QuietHandler

REPLY = "Hello from the fake server. It streams in pieces."
REPEATS = 150  # past litellm's REPEATED_STREAMING_CHUNK_LIMIT (100)
CACHE_MINIMUM = 1024  # OpenAI caches prompts of 1024 tokens and more...
CACHE_STEP = 128  # ...in steps of 128 tokens
LEGACY_PROMPT_TOKENS = 11


def prompt_units(body: dict[str, Any]) -> list[str]:
    """The prompt as OpenAI's cache compares it: `tools` (one unit, if any), then each message, as
    canonical JSON (sorted keys, no spaces)."""
    units = [body["tools"]] if body.get("tools") else []
    return [json.dumps(unit, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            for unit in units + list(body.get("messages") or [])]  # fmt: skip


def approx_tokens(unit: str) -> int:
    return len(unit) // 4


@dataclass
class _SeenPrompt:
    model: str
    units: list[str]
    used: float
    ttl: float


def openai_problems(body: dict[str, Any]) -> list[str]:
    problems = []
    messages = body.get("messages", [])
    for i, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            if len(call.get("id", "")) > 40:
                problems.append(f"messages[{i}].tool_calls.id: string too long (max 40)")
        if message.get("tool_calls"):
            ids = {c["id"] for c in message["tool_calls"]}
            answered = set()
            j = i + 1
            while j < len(messages) and messages[j].get("role") == "tool":
                answered.add(messages[j].get("tool_call_id"))
                j += 1
            if ids != answered:
                problems.append(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                    f"'tool_call_id'. The following tool_call_ids did not have response messages: {sorted(ids - answered)}"
                )
        if message.get("role") == "tool" and len(message.get("tool_call_id", "")) > 40:
            problems.append(f"messages[{i}].tool_call_id: string too long (max 40)")
        for key in ("thinking_blocks",):
            if key in message:
                problems.append(f"messages[{i}]: Additional properties are not allowed ('{key}' was unexpected)")
        if message.get("role") == "tool" and (i == 0 or not _answers(messages, i)):
            problems.append(f"messages[{i}]: role 'tool' must be a response to a preceding message with 'tool_calls'")
    return problems


def _answers(messages: list[dict[str, Any]], index: int) -> bool:
    j = index - 1
    while j >= 0 and messages[j].get("role") == "tool":
        j -= 1
    return j >= 0 and bool(messages[j].get("tool_calls"))


class FakeOpenAI(LoopbackServer):
    path_prefix = "/v1"

    def __init__(self) -> None:
        self.script: list[str] = ["ok"]
        self.reply = REPLY
        self.thinking = "The user greets me. I should greet back."
        self.answer_gate = threading.Event()
        self.answer_gate.set()
        self.pace = 0.0
        """Seconds between two words of a reply (0: as fast as the socket takes them)."""
        self.hold_after = 0
        """`held`: words sent before waiting on `answer_gate` (a test clears the gate first)."""
        self.released = threading.Event()  # ends every `hang` and `stall` at once
        self.headers: list[dict[str, str]] = []
        self.context_window: int | None = None
        """When set, a request whose messages plus `max_tokens` exceed it is refused as OpenAI does."""
        self.prompt_tokens: list[int] = []
        self.tool_calls: list[tuple[str, str]] = [("recall", '{"query": "hello"}')]
        """What a `tool` behaviour calls: (function name, arguments as a JSON string), in one message."""
        self.answer_delay = 0.0
        """Seconds a non-streaming answer (what the LLM summarizer asks for) waits: a slow summarizer."""
        self.approximate_usage = False
        """Report the prompt's size and the prompt cache's hits (see the module's docstring), not 11 and 0."""
        self.reasoning_tokens = 0
        """`completion_tokens_details.reasoning_tokens`, included in completion_tokens."""
        self.clock: Callable[[], float] = time.monotonic
        """The prompt cache's time: a test swaps it to age the cache (`lambda: start + 360`)."""
        self.cache_ttl = 300.0
        """Seconds a prompt stays cached after its last use (OpenAI: 5 to 10 minutes of inactivity)."""
        self.usages: list[dict[str, Any]] = []
        self._seen: list[_SeenPrompt] = []
        self._cache_lock = threading.Lock()
        super().__init__()

    def prompt_usage(self, body: dict[str, Any]) -> tuple[int, int]:
        """(prompt tokens, cached tokens) of a request being answered, which the cache then holds."""
        units, now = prompt_units(body), self.clock()
        sizes = [approx_tokens(unit) for unit in units]
        model = str(body.get("model"))
        with self._cache_lock:
            self._seen = [seen for seen in self._seen if now - seen.used < seen.ttl]
            shared, source = 0, None
            for seen in self._seen:
                if seen.model != model:
                    continue
                common = next((n for n, pair in enumerate(zip(units, seen.units, strict=False)) if pair[0] != pair[1]),
                              min(len(units), len(seen.units)))  # fmt: skip
                if sum(sizes[:common]) > shared:
                    shared, source = sum(sizes[:common]), seen
            if source is not None:
                source.used = now
            ttl = 86400.0 if body.get("prompt_cache_retention") == "24h" else self.cache_ttl
            self._seen.append(_SeenPrompt(model, units, now, ttl))
        return sum(sizes), shared // CACHE_STEP * CACHE_STEP if shared >= CACHE_MINIMUM else 0

    def usage(self, prompt: tuple[int, int], completion: int) -> dict[str, Any]:
        """The usage of an answered request (`prompt` from `prompt_usage`), remembered in `usages`."""
        tokens, cached = prompt if self.approximate_usage else (LEGACY_PROMPT_TOKENS, 0)
        completion += self.reasoning_tokens
        usage = {
            "prompt_tokens": tokens, "completion_tokens": completion, "total_tokens": tokens + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": self.reasoning_tokens, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        }  # fmt: skip
        self.usages.append(usage)
        return usage

    def too_long(self, body: dict[str, Any]) -> str | None:
        """OpenAI's context_length_exceeded message, if `body` does not fit `context_window` (o200k count)."""
        if self.context_window is None:
            return None
        import litellm

        prompt = litellm.token_counter(model="gpt-4o", messages=body.get("messages", []))
        self.prompt_tokens.append(prompt)
        asked = int(body.get("max_tokens") or 0)
        if prompt + asked <= self.context_window:
            return None
        return (
            f"This model's maximum context length is {self.context_window} tokens. However, you requested "
            f"{prompt + asked} tokens ({prompt} in the messages, {asked} in the completion). Please reduce the "
            "length of the messages or completion."
        )

    def release(self) -> None:
        self.released.set()

    def stop(self) -> None:
        self.release()
        super().stop()

    def next_behaviour(self) -> str:
        if len(self.script) > 1:
            return self.script.pop(0)
        return self.script[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                behaviour = fake.next_behaviour()
                problems = openai_problems(body)
                overflow = fake.too_long(body)
                if overflow is not None:
                    fake.rejected.append(overflow)
                    self._error(400, overflow, "context_length_exceeded")
                elif problems:
                    fake.rejected.append(problems[0])
                    self._error(400, problems[0], "invalid_request_error")
                elif behaviour == "500":
                    self._error(500, "The server had an error while processing your request.", "server_error")
                elif behaviour.startswith("429"):
                    retry_after = behaviour.partition(":")[2] or "1"
                    self._error(429, "Rate limit reached", "rate_limit_exceeded", {"retry-after": retry_after})
                elif behaviour == "401":
                    self._error(401, "Incorrect API key provided", "invalid_api_key")
                elif behaviour == "404":
                    self._error(404, "The model `fake-model` does not exist", "model_not_found")
                elif behaviour == "400":
                    self._error(400, "Invalid 'messages': bad request", "invalid_request_error")
                elif behaviour == "hang":
                    fake.released.wait(60)
                elif not body.get("stream"):
                    prompt = fake.prompt_usage(body)
                    fake.released.wait(fake.answer_delay)
                    self._json(200, {
                        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                        "model": "fake-model",
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": fake.reply}}],
                        "usage": fake.usage(prompt, 7),
                    })  # fmt: skip
                else:
                    self._stream(body, behaviour)

            def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(raw)

            def _error(self, status: int, message: str, code: str, headers: dict[str, str] | None = None) -> None:
                self._json(status, {"error": {"message": message, "type": code, "code": code}}, headers)

            def _chunk(self, delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> bytes:
                data = {
                    "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": "fake-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if usage is None else [],
                }  # fmt: skip
                if usage is not None:
                    data["usage"] = usage
                return f"data: {json.dumps(data)}\n\n".encode()

            def _send(self, raw: bytes) -> None:
                self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
                self.wfile.flush()

            def _stream(self, body: dict[str, Any], behaviour: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                prompt = fake.prompt_usage(body)
                if behaviour == "empty":
                    self._send(b"")
                    return
                if behaviour == "tool":
                    self._stream_tool_calls(body, prompt)
                    return
                words = fake.reply.split(" ")
                if behaviour == "slow":
                    words = [f"word{n}" for n in range(100)]
                if behaviour == "blank":
                    words = []
                if behaviour == "repeat":
                    words = ["again and again"] * REPEATS
                self._send(self._chunk({"role": "assistant", "content": None}))
                if behaviour == "think":  # a reasoning model: its thinking streams before the answer
                    for part in fake.thinking.split(" "):
                        self._send(self._chunk({"reasoning_content": part + " "}))
                        time.sleep(0.02)
                    fake.answer_gate.wait(30)  # a test holds the answer back to look at the thinking
                for n, word in enumerate(words):
                    if behaviour == "held" and n == fake.hold_after:
                        fake.answer_gate.wait(30)  # a test looks at the reply mid-stream
                    if behaviour == "drop" and n == 3:
                        self.wfile.flush()
                        self.connection.shutdown(2)
                        self.close_connection = True
                        return
                    if behaviour == "stall" and n == 3:
                        fake.released.wait(60)
                        return
                    if behaviour == "garbage" and n == 0:
                        self._send(b"data: {this is not json\n\n")
                        continue
                    self._send(self._chunk({"content": (" " if n else "") + word}))
                    if behaviour == "slow":
                        time.sleep(0.1)
                    elif fake.pace:
                        time.sleep(fake.pace)
                if behaviour == "nofinish":
                    self._send(b"")
                    return
                self._send(self._chunk({}, "length" if behaviour == "cut" else "stop"))
                usage = fake.usage(prompt, len(words))
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._send(self._chunk({}, usage=usage))
                self._send(b"data: [DONE]\n\n")
                self._send(b"")

            def _stream_tool_calls(self, body: dict[str, Any], prompt: tuple[int, int]) -> None:
                """OpenAI's streamed tool calls: per call, a delta with index, id, type and name, then
                argument fragments under the same index; the finish reason is `tool_calls`."""
                self._send(self._chunk({"role": "assistant", "content": None}))
                for index, (name, arguments) in enumerate(fake.tool_calls):
                    call_id = f"call_{len(fake.requests)}x{index}"
                    self._send(self._chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                                            "function": {"name": name, "arguments": ""}}]}))  # fmt: skip
                    third = max(1, len(arguments) // 3)
                    for start in range(0, len(arguments), third):
                        piece = arguments[start : start + third]
                        self._send(self._chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
                self._send(self._chunk({}, "tool_calls"))
                usage = fake.usage(prompt, 9)
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._send(self._chunk({}, usage=usage))
                self._send(b"data: [DONE]\n\n")
                self._send(b"")

        return Handler
