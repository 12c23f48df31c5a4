"""Checks of docs/design.md §3 on a context, used as the fold pipeline's last gate and by the tests."""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message
from .snapshot import is_snapshot_message


def violations(messages: Sequence[Message], system_prompts: Sequence[Message] | None = None) -> list[str]:
    """Every broken structural invariant (1, 2, 3, 6) in `messages`; empty when the context is valid."""
    found: list[str] = []
    leading = 0
    while leading < len(messages) and messages[leading].role == "system":
        leading += 1
    if any(m.role == "system" for m in messages[leading:]):
        found.append("a system message after the start")
    if system_prompts is not None and list(messages[:leading]) != list(system_prompts):
        found.append("system prompts differ from the conversation's")
    rest = messages[leading:]
    if rest and rest[0].role != "user":
        found.append(f"first non-system message is {rest[0].role}, not user")
    for index in range(1, len(rest)):
        a, b = rest[index - 1], rest[index]
        if a.role == b.role and a.role in ("user", "assistant"):
            found.append(f"two {a.role} messages in a row at {leading + index}")
    index = 0
    while index < len(rest):
        message = rest[index]
        if message.role == "tool":
            found.append(f"tool result {message.tool_call_id!r} at {leading + index} without its call")
            index += 1
            continue
        index += 1
        if message.role == "assistant" and message.tool_calls:
            ids = list(message.call_ids)
            results = []
            while index < len(rest) and rest[index].role == "tool":
                results.append(rest[index].tool_call_id)
                index += 1
            if sorted(results, key=str) != sorted(ids) or len(set(ids)) != len(ids):
                found.append(f"tool calls {ids} answered by {results}")
    snapshots = sum(1 for m in rest if is_snapshot_message(m))
    if snapshots > 1:
        found.append(f"{snapshots} snapshots in the context (at most one allowed)")
    return found
