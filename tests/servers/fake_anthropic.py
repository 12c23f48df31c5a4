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
"""

from __future__ import annotations

import json
import re
import secrets
from http.server import BaseHTTPRequestHandler
from typing import Any

from servers.loopback import LoopbackServer, QuietHandler

ID = re.compile(r"^[a-zA-Z0-9_-]+$")


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


class FakeAnthropic(LoopbackServer):
    path_prefix = ""

    def __init__(self) -> None:
        self.issued: set[str] = set()
        self.reply = "Anthropic-style answer, streamed."
        self.script: list[str] = ["ok"]
        self.tool_calls: list[tuple[str, str]] = [("recall", '{"query": "hello"}')]
        """What a `tool` behaviour calls: (tool name, input as a JSON string), in one message."""
        super().__init__()

    def next_behaviour(self) -> str:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                fake.requests.append(body)
                problems = anthropic_problems(body, fake.issued)
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
                self._event("message_start", {"type": "message_start", "message": {
                    "id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": model,
                    "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 20, "output_tokens": 1}}})  # fmt: skip
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
                self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop,
                                              "stop_sequence": None}, "usage": {"output_tokens": 12}})  # fmt: skip
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
