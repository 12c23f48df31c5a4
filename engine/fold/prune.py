"""Step 0 of a fold (docs/design.md §6.0): old tool outputs and attachments become one-line stubs before
anything is summarized.

Walking from the newest tool output back, outputs within `keep_tokens` stay verbatim, and so does
everything from the previous user turn on except the current turn's older exchanges (an agent loop's
old outputs are exactly what pruning is for); the newest exchange is never touched. Each older output
becomes a stub that says what the tool returned (the rules tool-facts line) and which transcript message
holds the original. The call and its stubbed result stay a valid pair. An attached file or command output
in a user message is pruned the same way: its part becomes `[attached notes.md, 12 KB, message #14 —
recall("notes.md") returns it]`, the rest of the message (what the person wrote) stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..attachments import attachment_of, is_stubbed, stubbed
from ..messages import Message
from ..summarizers.tool_facts import describe

PRUNED_MARK = "[pruned by Foldchat:"


@dataclass(frozen=True)
class Pruned:
    """Messages after pruning, and the positions (in the input) whose output became a stub."""

    messages: list[Message]
    positions: tuple[int, ...]


def is_pruned(message: Message) -> bool:
    return message.role == "tool" and isinstance(message.content, str) and message.content.startswith(PRUNED_MARK)


def stub(call_message: Message | None, result: Message, number: int) -> Message:
    """`result` with its text replaced by what the tool returned, in one line, and where the original is."""
    call = next((c for c in call_message.tool_calls if c.id == result.tool_call_id), None) if call_message else None
    fact = describe(call, result).action if call is not None else f"{result.name or 'tool'} output"
    text = f"{PRUNED_MARK} {fact}; the full output is transcript message #{number}]"
    return result.evolve(content=text, has_content_key=True)


def prune_tool_outputs(
    messages: Sequence[Message],
    counts: Sequence[int],
    prunable: Callable[[int], bool],
    keep_tokens: int,
    number_of: Callable[[int], int],
    needed: tuple[int, Callable[[Message], int]] | None = None,
) -> Pruned:
    """Stub `prunable` tool outputs that lie beyond the newest `keep_tokens` of outputs, oldest first.

    `number_of(position)` is the transcript number a stub points to. With `needed` = (tokens, count),
    pruning stops once that many tokens are saved (a fold lands near its target, not far below it).
    """
    out = list(messages)
    positions: list[int] = []
    owners = _call_owners(messages)
    saved = 0
    for index in _candidates(messages, counts, prunable, keep_tokens):
        if needed is not None and saved >= needed[0]:
            break
        message = messages[index]
        replacement = (
            stub(owners.get(index), message, number_of(index))
            if message.role == "tool"
            else stubbed(message, number_of(index))
        )
        # a stub longer than the output saves nothing (an image's label is short, its tokens are not)
        if message.role == "user" or len(replacement.text) < len(message.text):
            out[index] = replacement
            positions.append(index)
            if needed is not None:
                saved += counts[index] - needed[1](replacement)
    return Pruned(out, tuple(positions))


def _candidates(
    messages: Sequence[Message], counts: Sequence[int], prunable: Callable[[int], bool], keep_tokens: int
) -> list[int]:
    """Positions of the outputs that may become stubs, oldest first."""
    found: list[int] = []
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not (_holds_attachment(message) if message.role == "user" else message.role == "tool"):
            continue
        if is_pruned(message):
            continue
        seen += counts[index]
        if seen > keep_tokens and prunable(index):
            found.append(index)
    return found[::-1]


def _holds_attachment(message: Message) -> bool:
    """A user message with an attachment not pruned yet."""
    content = message.content
    return isinstance(content, tuple) and any(attachment_of(p) is not None and not is_stubbed(p) for p in content)


def _call_owners(messages: Sequence[Message]) -> dict[int, Message]:
    """For each tool result's position, the assistant message that made its call."""
    owners: dict[int, Message] = {}
    current: Message | None = None
    for index, message in enumerate(messages):
        if message.role == "assistant":
            current = message if message.tool_calls else None
        elif message.role == "tool" and current is not None:
            owners[index] = current
    return owners
