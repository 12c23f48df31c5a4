"""Role alternation and tool-pair repair (docs/design.md §3, invariants 1–3).

`repair` turns any list of valid messages into one every provider accepts:
- system messages move to the front, unchanged and in order;
- each assistant `tool_calls` message is followed by exactly one result per call id, in call order
  (results found right after it are reordered; a missing one gets a synthetic result saying so);
- a tool result whose call is not right before it is never kept as a tool message: it becomes a
  labelled user note, so nothing is lost and nothing dangles;
- consecutive user (or assistant) messages are merged into one new message;
- the first non-system message is a user message.
Messages that need no repair are returned as the very same objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .messages import FrozenDict, Message, merge_content

MISSING_RESULT = "[no result was recorded for this tool call: it was interrupted or its output was lost]"
CONVERSATION_START = "[the conversation continues from an earlier part that is not included]"


@dataclass(frozen=True)
class Repaired:
    messages: list[Message]
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def split_system(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    systems = [m for m in messages if m.role == "system"]
    rest = [m for m in messages if m.role != "system"]
    return systems, rest


def orphan_note(message: Message) -> Message:
    call = f"call id {message.tool_call_id}" if message.tool_call_id else "no call id"
    tool = f"{message.name} " if message.name else ""
    return Message.user(f"[{tool}tool output whose call is not in the conversation ({call})]\n{message.text}")


def pair_tool_results(messages: Sequence[Message], notes: list[str]) -> list[Message]:
    out: list[Message] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.role == "tool":
            notes.append(f"tool result {message.tool_call_id!r} had no call before it: kept as a note")
            out.append(orphan_note(message))
            i += 1
            continue
        out.append(message)
        i += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        run_end = i
        while run_end < len(messages) and messages[run_end].role == "tool":
            run_end += 1
        results: dict[str, tuple[int, Message]] = {}  # call id -> (position in the run, result)
        leftovers: list[Message] = []
        wanted = set(message.call_ids)
        for position, result in enumerate(messages[i:run_end]):
            call_id = result.tool_call_id
            if call_id is not None and call_id in wanted and call_id not in results:
                results[call_id] = (position, result)
            elif not call_id and (unanswered := [c for c in message.call_ids if c not in results]):
                # exports that dropped the ids: the result right after a call answers it
                notes.append(f"tool result without a call id matched to call {unanswered[0]!r} by position")
                results[unanswered[0]] = (position, result.evolve(tool_call_id=unanswered[0]))
            else:
                leftovers.append(result)
        for call in message.tool_calls:
            if call.id in results:
                out.append(results[call.id][1])
            else:
                notes.append(f"tool call {call.id!r} had no result: added a synthetic one")
                out.append(Message.tool(call.id, MISSING_RESULT, name=call.name))
        if [results[c][0] for c in message.call_ids if c in results] != list(range(len(results))):
            notes.append("tool results reordered to follow their calls")
        for leftover in leftovers:
            notes.append(f"tool result {leftover.tool_call_id!r} did not match its call: kept as a note")
            out.append(orphan_note(leftover))
        i = run_end
    return out


def merge_pair(first: Message, second: Message) -> Message:
    """Two same-role messages as one new message; extras of both kept (lists joined, later wins)."""
    extras = dict(first.extras)
    for key, value in second.extras.items():
        if isinstance(extras.get(key), tuple) and isinstance(value, tuple):
            extras[key] = extras[key] + value
        elif isinstance(extras.get(key), str) and isinstance(value, str):
            extras[key] = f"{extras[key]}\n\n{value}"
        else:
            extras[key] = value
    return Message(
        role=first.role,
        content=merge_content(first.content, second.content),
        tool_calls=first.tool_calls + second.tool_calls,
        name=first.name if first.name == second.name else None,
        extras=FrozenDict(extras),
        key=second.key,
    )


def merge_same_roles(messages: Sequence[Message], notes: list[str]) -> list[Message]:
    out: list[Message] = []
    for message in messages:
        previous = out[-1] if out else None
        if (
            previous is not None
            and message.role == previous.role
            and message.role in ("user", "assistant")
            # an assistant tool_calls message is always followed by its results, never merged into
            and not previous.tool_calls
        ):
            notes.append(f"two {message.role} messages in a row: merged")
            out[-1] = merge_pair(previous, message)
        else:
            out.append(message)
    return out


def repair(messages: Sequence[Message]) -> Repaired:
    """A provider-valid copy of `messages` (see module docstring) and what was changed."""
    notes: list[str] = []
    systems, rest = split_system(messages)
    if any(m.role == "system" for m in messages[len(systems) :]):
        notes.append("system messages moved to the start")
    rest = pair_tool_results(rest, notes)
    if rest and rest[0].role != "user":
        notes.append("the conversation did not start with a user message: added a placeholder")
        rest = [Message.user(CONVERSATION_START), *rest]
    rest = merge_same_roles(rest, notes)
    return Repaired(systems + rest, notes)


def current_turn_start(messages: Sequence[Message]) -> int:
    """Index of the last user message (the current turn starts there); 0 if there is none."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return 0
