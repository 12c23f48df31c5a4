"""The oversized-message pass (DESIGN §6.1): one huge tool output or reply, condensed in the context.

The condensed message keeps its role, tool_call_id and tool calls (pairs stay valid); only its text is
replaced by a digest: the start, the end, the first error line and every identifier. The original
stays in the transcript.
"""

from __future__ import annotations

from .facts import first_error_line, identifiers
from .messages import Message

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
