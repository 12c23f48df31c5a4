"""Marking the stable prefix of a request for providers that cache only what is marked (Anthropic).

Foldchat knows which part of a context is stable until the next fold: the system prompt, the snapshot
with its acknowledgement, and the turns kept after it. Anthropic reads a marked prefix it has seen in
the last five minutes at a tenth of the input price (writing it costs 1.25x once), so each request marks
up to three points, each on the last block of a message (litellm turns `cache_control` on a content
block into Anthropic's):

- the last system message;
- the snapshot's acknowledgement (or the snapshot, when nothing answers it);
- the newest stable point: the last message before the current turn's prompt, and before the recalled
  passages that go with it, which change at every send.

Nothing that varies between sends comes before a mark. Providers that cache a repeated prefix by
themselves (OpenAI, DeepSeek, Gemini) get no marks; the context they are sent is already byte-identical
between sends until a fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..messages import Message
from .target import ModelTarget

EPHEMERAL = {"type": "ephemeral"}
MAX_MARKS = 4  # Anthropic refuses a request with more blocks marked


def needs_marks(target: ModelTarget) -> bool:
    return not target.backend.on_this_machine and target.provider == "anthropic"


def stable_points(context: Sequence[Message], prompt_index: int | None) -> list[int]:
    """The positions in `context` to mark, oldest first (at most three, each a message with text)."""
    points: list[int] = []
    systems = [i for i, m in enumerate(context) if m.role == "system"]
    if systems:
        points.append(systems[-1])
    snapshot = next((i for i, m in enumerate(context) if m.is_snapshot), None)
    if snapshot is not None:
        answered = snapshot + 1 < len(context) and context[snapshot + 1].role == "assistant"
        points.append(snapshot + 1 if answered else snapshot)
    if prompt_index is not None:
        stable = prompt_index - 1
        while stable >= 0 and not _markable(context[stable]):
            stable -= 1  # a tool result or a bare tool call: the text message before it
        if stable >= 0:
            points.append(stable)
    return sorted(set(points))[-(MAX_MARKS - 1) :]


def _markable(message: Message) -> bool:
    return message.role in ("system", "user", "assistant") and not message.tool_calls and bool(message.text.strip())


def marked(messages: list[dict[str, Any]], points: Sequence[int]) -> list[dict[str, Any]]:
    """`messages` (as sent) with the last text block of each message at `points` marked for the cache."""
    out = list(messages)
    for i in points:
        if 0 <= i < len(out):
            out[i] = _with_mark(out[i])
    return out


def _with_mark(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str):
        if not content.strip():
            return message
        return {**message, "content": [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]}
    if isinstance(content, list):
        texts = [n for n, part in enumerate(content) if isinstance(part, dict) and part.get("type") == "text"
                 and str(part.get("text", "")).strip()]  # fmt: skip
        if not texts:
            return message
        parts = list(content)
        parts[texts[-1]] = {**parts[texts[-1]], "cache_control": dict(EPHEMERAL)}
        return {**message, "content": parts}
    return message
