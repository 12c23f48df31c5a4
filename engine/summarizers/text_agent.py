"""Agents without tool calls: the command is a fenced block in the reply, the result a "user" message.

mini-swe-agent's assistant writes `THOUGHT: …` and one ```bash block; the next message (role `user`)
holds `<returncode>0</returncode><output>…</output>`. Such a message is the command's output, not
something the user said: it is read as a tool result and never becomes a user request.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"```(?:bash|sh|shell|console)[ \t]*\n(.*?)\n```", re.S)
_OBSERVATION = re.compile(r"\s{0,20}<(?:returncode|output|warning)>")


def fenced_command(text: str) -> str | None:
    """The last shell block of an assistant reply, or None."""
    blocks = _FENCE.findall(text[:20_000])
    return blocks[-1].strip() if blocks and blocks[-1].strip() else None


def is_observation(text: str) -> bool:
    """True for a message that is a command's output in the `<returncode>` / `<output>` shape."""
    return _OBSERVATION.match(text) is not None
