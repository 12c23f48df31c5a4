"""The oversized-message pass (docs/design.md §6.1): one huge tool output or reply, condensed in the context.

The condensed message keeps its role, tool_call_id and tool calls (pairs stay valid); only its text is
replaced by a digest: the start, the end, the first error line and every identifier. The original
stays in the transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..facts import first_error_line, identifiers
from ..messages import Message
from ..tokens import TokenCounter

CONDENSED_MARK = "[condensed by Foldchat:"


def condense(message: Message, original_tokens: int, token_budget: int) -> Message:
    """`message` with its text replaced by a digest of about `token_budget` tokens at most."""
    chars = max(200, token_budget * 2)  # ~4 chars per token: aim for half the budget
    text = message.text
    head = text[: chars // 2].rstrip()
    tail = text[-(chars // 4) :].lstrip() if len(text) > chars else ""
    lines = [
        f"{CONDENSED_MARK} this {message.role} message had {original_tokens:,} tokens; "
        "the full text stays in the transcript]",
        head,
    ]
    if tail:
        lines += ["[…]", tail]
    error = first_error_line(text)
    if error and error not in head and error not in tail:
        lines.append(f"first error: {error}")
    found = identifiers(text, limit=40)
    if found:
        lines.append("identifiers: " + ", ".join(found)[: chars // 4])
    return message.evolve(content="\n".join(lines), has_content_key=True)


def is_condensed(message: Message) -> bool:
    return isinstance(message.content, str) and message.content.startswith(CONDENSED_MARK)


@dataclass(frozen=True)
class CondensedContext:
    """Messages after the oversized pass, and the positions (in `messages`) that were condensed."""

    messages: list[Message]
    positions: tuple[int, ...]


def condense_oversized(
    messages: Sequence[Message], before: int, counter: TokenCounter, threshold: int
) -> CondensedContext:
    """Condense each tool output or reply above `threshold` tokens among `messages[:before]`.

    `before` is where the current turn starts: it is always kept verbatim (docs/design.md §3.5). The fold and
    the rebuilt context both go through here, so the context the fold reported is the one sent later.
    """
    out = list(messages)
    positions: list[int] = []
    for index in range(min(before, len(out))):
        message = out[index]
        if message.role in ("tool", "assistant") and (tokens := counter.count_message(message)) > threshold:
            out[index] = condense(message, tokens, threshold // 2)
            positions.append(index)
    return CondensedContext(out, tuple(positions))
