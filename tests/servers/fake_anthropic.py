"""A loopback Anthropic Messages API (POST /v1/messages) that validates requests as the real API does.

Checks: the first message is from the user; roles strictly alternate; every `tool_use` is answered by a
`tool_result` with the same id in the very next (user) message, and no `tool_result` answers anything
else; ids match `^[a-zA-Z0-9_-]+$`; a `thinking` block is accepted only with a signature this server
issued; a request whose messages hold `tool_use` or `tool_result` blocks defines `tools`. Violations get
a 400 with Anthropic's error JSON. Replies stream as Anthropic's SSE events (message_start,
content_block_*, message_delta, message_stop), with a signed thinking block first.

    server.script = ["tool", "ok"]   # one behaviour per request, the last one repeats

Behaviours: ok (the text `reply`), tool (a `tool_use` block per entry of `tool_calls`, its input
streamed as `input_json_delta` pieces, stop reason `tool_use`).

Prompt caching, as the real API does it. `cache_control` is validated: at most 4 marked blocks across
`tools`, `system` (list form), `messages[*].content` (nested `tool_result` content included) and the
top-level `cache_control` (automatic caching: it marks the last cacheable block); each is
`{"type": "ephemeral"}` with an optional `"ttl"` of "5m" or "1h"; a "1h" mark may not follow a "5m" one
(order: tools, system, messages); none on an empty text block or a thinking block. Violations get a
400 with the real message (and land in `rejected`).

The cache: the request's prompt is flattened to a list of blocks (each tool, each system block, each
message's content blocks with the message's role) and the prefix up to and including block i is keyed
by a hash of the model and the canonical JSON of those blocks without their `cache_control` (changing
`tool_choice` or `thinking` changes the keys of the messages' blocks, as it invalidates them for real).
A prefix is cacheable when it is at least `min_cacheable_tokens` (1024, Sonnet's minimum) long. On each
request the longest live cached prefix ending at a marked block, or at most 20 blocks before one (the
API's lookback), is read (`cache_read_input_tokens`, and its entry's clock restarts); the tokens from
there to the last cacheable marked block are written (`cache_creation_input_tokens`, split by the
marks' ttl in `cache_creation`), and every marked prefix past the read one is stored for its ttl (5
minutes, or an hour for "1h"); the rest is `input_tokens`. Time is `server.clock()` (`time.monotonic`
unless a test swaps it).

Tokens are approximated, deterministically: a block counts `len(canonical JSON) // 4` (sorted keys,
no spaces, no `cache_control`; a message block's JSON includes its `"role"`), so input + read + write
always equals `prompt_tokens(body)`. The usage goes where Anthropic puts it: `message_start.message.
usage` carries input_tokens, cache_creation_input_tokens, cache_read_input_tokens, cache_creation
({ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}) and output_tokens 1; `message_delta.usage` is
`{"output_tokens": N}` (with `cumulative_delta_usage` set, it repeats the input counts too, as the
current API does). `usages` keeps, per streamed request, the final usage (start merged with delta).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from servers.loopback import LoopbackServer, QuietHandler

ID = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_CACHE_MARKS = 4
CACHE_TTLS = {"5m": 300.0, "1h": 3600.0}
LOOKBACK_BLOCKS = 20
UNCACHEABLE = ("thinking", "redacted_thinking")


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def anthropic_problems(body: dict[str, Any], issued: set[str]) -> list[str]:
    messages = body.get("messages") or []
    problems: list[str] = []
    if not messages or messages[0].get("role") != "user":
        problems.append('messages: first message must use the "user" role')
    for i, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            problems.append(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if i and message.get("role") == messages[i - 1].get("role"):
            problems.append('messages: roles must alternate between "user" and "assistant"')
        uses = [b for b in _blocks(message) if b.get("type") == "tool_use"]
        for block in _blocks(message):
            kind = block.get("type")
            if kind in ("tool_use", "tool_result"):
                ident = block.get("id") if kind == "tool_use" else block.get("tool_use_id")
                if not isinstance(ident, str) or not ID.match(ident):
                    problems.append(f"messages.{i}.content: String should match pattern '^[a-zA-Z0-9_-]+$'")
            if kind in ("thinking", "redacted_thinking") and block.get("signature") not in issued:
                problems.append(f"messages.{i}.content: Invalid `signature` in `thinking` block")
            if kind == "tool_result":
                previous = messages[i - 1] if i else {}
                ids = {b.get("id") for b in _blocks(previous) if b.get("type") == "tool_use"}
                if block.get("tool_use_id") not in ids:
                    problems.append(
                        f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
        if uses:
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = {b.get("tool_use_id") for b in _blocks(following or {}) if b.get("type") == "tool_result"}
            missing = [b.get("id") for b in uses if b.get("id") not in answered]
            if following is not None and missing:
                problems.append(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(map(str, missing))}"
                )
    uses_tools = any(b.get("type") in ("tool_use", "tool_result") for m in messages for b in _blocks(m))
    if uses_tools and not body.get("tools"):
        problems.append("Requests which include `tool_use` or `tool_result` blocks must define tools.")
    return problems


def canonical(value: Any) -> str:
    """`value` as sorted, compact JSON without any `cache_control`: what is hashed and counted."""
    return json.dumps(_unmarked(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _unmarked(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


def approx_tokens(block: Any) -> int:
    return len(canonical(block)) // 4


@dataclass
class PromptBlock:
    path: str
    """Where the block is in the request, as Anthropic's error messages name it (`messages.2.content.0`)."""
    block: dict[str, Any]
    """What is counted and hashed: the tool, the system block, or the message block with its `role`."""
    mark: dict[str, Any] | None
    """The `cache_control` on the block (or inside it, for a `tool_result`'s content)."""


def _system_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    system = body.get("system")
    if isinstance(system, str):
        return [{"type": "text", "text": system}] if system else []
    return [block for block in system or [] if isinstance(block, dict)]


def _marks_in(path: str, block: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(path, block, cache_control) for `block` and the blocks nested in its `content`, when marked."""
    if "cache_control" in block:
        yield path, block, block["cache_control"]
    nested = block.get("content")
    if block.get("type") == "tool_result" and isinstance(nested, list):
        for k, inner in enumerate(nested):
            if isinstance(inner, dict) and "cache_control" in inner:
                yield f"{path}.content.{k}", inner, inner["cache_control"]


def _raw_blocks(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(path, the block as sent, the block as counted) in the order the API processes them."""
    for i, tool in enumerate(body.get("tools") or []):
        yield f"tools.{i}", tool, tool
    for i, block in enumerate(_system_blocks(body)):
        yield f"system.{i}", block, block
    for i, message in enumerate(body.get("messages") or []):
        for j, block in enumerate(_blocks(message)):
            yield f"messages.{i}.content.{j}", block, {"role": message.get("role"), **block}


def _top_level_target(body: dict[str, Any]) -> int | None:
    """The index (in `prompt_blocks` order) of the last cacheable block: where a top-level mark goes."""
    found = None
    for n, (_, block, _) in enumerate(_raw_blocks(body)):
        empty_text = block.get("type") == "text" and not block.get("text")
        if block.get("type") not in UNCACHEABLE and not empty_text:
            found = n
    return found


def prompt_blocks(body: dict[str, Any]) -> list[PromptBlock]:
    """The request's prompt flattened: tools, then system, then the messages' content blocks, each with
    its mark (a top-level `cache_control` marks the last cacheable block, unless it is marked already)."""
    found = []
    for path, block, counted in _raw_blocks(body):
        marks = [control for _, _, control in _marks_in(path, block) if isinstance(control, dict)]
        found.append(PromptBlock(path, counted, marks[-1] if marks else None))
    target = _top_level_target(body)
    top = body.get("cache_control")
    if isinstance(top, dict) and target is not None and found[target].mark is None:
        found[target].mark = top
    return found


def prompt_tokens(body: dict[str, Any]) -> int:
    """The request's total prompt in the fake's approximation: input + cache read + cache write."""
    return sum(approx_tokens(block.block) for block in prompt_blocks(body))


def _control_problems(path: str, control: Any) -> list[str]:
    if not isinstance(control, dict):
        return [f"{path}: Input should be a valid dictionary"]
    problems = [f"{path}.{key}: Extra inputs are not permitted" for key in control if key not in ("type", "ttl")]
    if control.get("type") != "ephemeral":
        problems.append(f"{path}.type: Input should be 'ephemeral'")
    if "ttl" in control and control["ttl"] not in CACHE_TTLS:
        problems.append(f"{path}.ttl: Input should be '5m' or '1h'")
    return problems


def cache_control_problems(body: dict[str, Any]) -> list[str]:
    """What the real API says about the request's `cache_control` marks, in the order it checks them."""
    problems: list[str] = []
    marked: list[tuple[str, Any]] = []
    for path, block, _ in _raw_blocks(body):
        for where, inner, control in _marks_in(path, block):
            kind = inner.get("type")
            if kind in UNCACHEABLE:
                problems.append(f"{where}.{kind}.cache_control: Extra inputs are not permitted")
                continue
            problems += _control_problems(f"{where}.cache_control", control)
            if kind == "text" and not inner.get("text"):
                problems.append(f"{where}.text: cache_control cannot be set for empty text blocks")
            marked.append((where, control))
    top = body.get("cache_control")
    if top is not None:
        problems += _control_problems("cache_control", top)
        problems += _top_level_problems(body, top, marked)
    if len(marked) > MAX_CACHE_MARKS:
        problems.append(
            f"A maximum of {MAX_CACHE_MARKS} blocks with cache_control may be provided. Found {len(marked)}."
        )
    problems += _ttl_order_problems(marked)
    return problems


def _top_level_problems(body: dict[str, Any], top: Any, marked: list[tuple[str, Any]]) -> list[str]:
    """A top-level mark lands on the last cacheable block: one more mark, unless that block has one."""
    target = _top_level_target(body)
    if target is None or not isinstance(top, dict):
        return []
    path = next(itertools.islice(_raw_blocks(body), target, None))[0]
    own = [control for where, control in marked if where == path]
    if not own:
        marked.append((path, top))
        return []
    ttl, theirs = top.get("ttl", "5m"), own[0].get("ttl", "5m") if isinstance(own[0], dict) else "5m"
    if ttl != theirs:
        return [
            f"Top-level cache_control has ttl='{ttl}' but the target block already has cache_control with ttl='{theirs}'"
        ]
    return []


def _ttl_order_problems(marked: list[tuple[str, Any]]) -> list[str]:
    seen_short = False
    for path, control in marked:
        ttl = control.get("ttl", "5m") if isinstance(control, dict) else "5m"
        if ttl == "1h" and seen_short:
            return [
                f"{path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' "
                "cache_control block. Note that blocks are processed in the following order: `tools`, `system`, "
                "`messages`."
            ]
        seen_short = seen_short or ttl == "5m"
    return []


def _prefix_keys(body: dict[str, Any], blocks: list[PromptBlock]) -> list[str]:
    """Per block, the key of the prompt's prefix up to and including it."""
    digest = hashlib.sha256(canonical(body.get("model")).encode())
    settings = canonical({"thinking": body.get("thinking"), "tool_choice": body.get("tool_choice")})
    keys, in_messages = [], False
    for block in blocks:
        if block.path.startswith("messages") and not in_messages:
            in_messages = True
            digest.update(settings.encode() + b"\0")
        digest.update(canonical(block.block).encode() + b"\0")
        keys.append(digest.hexdigest())
    return keys


def cache_usage(
    body: dict[str, Any], cache: dict[str, tuple[float, float]], now: float, minimum: int
) -> dict[str, Any]:
    """The request's input usage, reading from and writing to `cache` (prefix key: (time written or last
    read, seconds it lives)) as Anthropic's prompt cache does; see the module's docstring."""
    for key in [key for key, (when, ttl) in cache.items() if now - when >= ttl]:
        del cache[key]
    blocks = prompt_blocks(body)
    ends = list(itertools.accumulate(approx_tokens(block.block) for block in blocks))
    total = ends[-1] if ends else 0
    keys = _prefix_keys(body, blocks)
    marks = [n for n, block in enumerate(blocks) if block.mark is not None and ends[n] >= minimum]
    candidates = {p for m in marks for p in range(m, max(m - LOOKBACK_BLOCKS, -1), -1)}
    hit = max((p for p in candidates if ends[p] >= minimum and keys[p] in cache), default=-1)
    read = ends[hit] if hit >= 0 else 0
    if hit >= 0:
        cache[keys[hit]] = (now, cache[keys[hit]][1])
    written = {"5m": 0, "1h": 0}
    start = read
    for m in marks:
        if m <= hit:
            continue
        ttl = str((blocks[m].mark or {}).get("ttl", "5m"))
        written[ttl] += ends[m] - start
        start = ends[m]
        cache[keys[m]] = (now, max(CACHE_TTLS[ttl], cache.get(keys[m], (0.0, 0.0))[1]))
    return {
        "input_tokens": total - max(read, ends[marks[-1]] if marks else 0),
        "cache_creation_input_tokens": written["5m"] + written["1h"],
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": written["5m"], "ephemeral_1h_input_tokens": written["1h"]},
    }


class FakeAnthropic(LoopbackServer):
    path_prefix = ""

    def __init__(self) -> None:
        self.issued: set[str] = set()
        self.reply = "Anthropic-style answer, streamed."
        self.script: list[str] = ["ok"]
        self.tool_calls: list[tuple[str, str]] = [("recall", '{"query": "hello"}')]
        """What a `tool` behaviour calls: (tool name, input as a JSON string), in one message."""
        self.clock: Callable[[], float] = time.monotonic
        """The prompt cache's time: a test swaps it to age the cache (`lambda: start + 360`)."""
        self.min_cacheable_tokens = 1024
        """Shorter prefixes are never cached (Sonnet's minimum; Opus 4.5 and Haiku 4.5 have 4096)."""
        self.cache: dict[str, tuple[float, float]] = {}
        """The prompt cache: prefix key -> (time written or last read, seconds it lives)."""
        self.usages: list[dict[str, Any]] = []
        """Per streamed request, the usage reported (message_start's, updated by message_delta's)."""
        self.output_tokens = 12
        """What `message_delta.usage.output_tokens` reports."""
        self.cumulative_delta_usage = False
        """Also repeat the input counts in `message_delta.usage` (today's API sends them there too)."""
        self._cache_lock = threading.Lock()
        super().__init__()

    def input_usage(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._cache_lock:
            return cache_usage(body, self.cache, self.clock(), self.min_cacheable_tokens)

    def next_behaviour(self) -> str:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                fake.requests.append(body)
                problems = anthropic_problems(body, fake.issued) + cache_control_problems(body)
                if not self.path.rstrip("/").endswith("/messages"):
                    problems.insert(0, f"Not found: {self.path}")
                if problems:
                    fake.rejected.append(problems[0])
                    raw = json.dumps(
                        {"type": "error", "error": {"type": "invalid_request_error", "message": problems[0]}}
                    ).encode()
                    self.send_response(400)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return
                self._stream(body)

            def _event(self, name: str, data: dict[str, Any]) -> None:
                raw = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
                self.wfile.flush()

            def _stream(self, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                signature = "sig-" + secrets.token_hex(8)
                fake.issued.add(signature)
                model = body.get("model", "claude")
                usage = {**fake.input_usage(body), "output_tokens": 1}
                self._event("message_start", {"type": "message_start", "message": {
                    "id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": model,
                    "stop_reason": None, "stop_sequence": None, "usage": usage}})  # fmt: skip
                self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                                    "content_block": {"type": "thinking", "thinking": ""}})  # fmt: skip
                self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                    "delta": {"type": "thinking_delta", "thinking": "Considering."}})  # fmt: skip
                self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                    "delta": {"type": "signature_delta", "signature": signature}})  # fmt: skip
                self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
                if fake.next_behaviour() == "tool":
                    self._tool_uses()
                    stop = "tool_use"
                else:
                    self._text(fake.reply)
                    stop = "end_turn"
                delta_usage: dict[str, Any] = {"output_tokens": fake.output_tokens}
                if fake.cumulative_delta_usage:
                    delta_usage = {key: usage[key] for key in ("input_tokens", "cache_creation_input_tokens",
                                                               "cache_read_input_tokens")} | delta_usage  # fmt: skip
                fake.usages.append({**usage, **delta_usage})
                self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop,
                                              "stop_sequence": None}, "usage": delta_usage})  # fmt: skip
                self._event("message_stop", {"type": "message_stop"})
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _text(self, text: str) -> None:
                self._event("content_block_start", {"type": "content_block_start", "index": 1,
                                                    "content_block": {"type": "text", "text": ""}})  # fmt: skip
                for n, word in enumerate(text.split(" ")):
                    self._event("content_block_delta", {"type": "content_block_delta", "index": 1,
                                                        "delta": {"type": "text_delta", "text": (" " if n else "") + word}})  # fmt: skip
                self._event("content_block_stop", {"type": "content_block_stop", "index": 1})

            def _tool_uses(self) -> None:
                """Anthropic's streamed tool use: a `tool_use` block with an empty input, then the input
                JSON in `input_json_delta` pieces."""
                for offset, (name, arguments) in enumerate(fake.tool_calls):
                    index = 1 + offset
                    block = {
                        "type": "tool_use",
                        "id": f"toolu_{len(fake.requests)}x{offset}",
                        "name": name,
                        "input": {},
                    }
                    self._event("content_block_start", {"type": "content_block_start", "index": index,
                                                        "content_block": block})  # fmt: skip
                    third = max(1, len(arguments) // 3)
                    for start in range(0, len(arguments), third):
                        delta = {"type": "input_json_delta", "partial_json": arguments[start : start + third]}
                        self._event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                            "delta": delta})  # fmt: skip
                    self._event("content_block_stop", {"type": "content_block_stop", "index": index})

        return Handler
