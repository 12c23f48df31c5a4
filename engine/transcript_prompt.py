"""The plain transcript prompt that makes the base Gemma 3 270M answer and stop (docs/design.md §10).

A base model has no chat template it follows; given a one-line preamble, one example exchange and
`User:` / `Assistant:` turns ending in `Assistant:`, it writes one reply and then starts a new
`User:` line, which the stop sequences cut off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PREAMBLE = "A conversation between a user and a helpful, friendly assistant who answers briefly and clearly."
EXAMPLE = "User: Hello! What can you do?\nAssistant: Hi! I can answer questions, explain things and help you write.\n"
# the next user turn, or the model starting a whole new transcript of its own
STOP = ["\nUser:", "User:", "\nuser:", "\nA conversation between", "<end_of_turn>"]
FORMAT_NAME = "foldchat-transcript"


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, Mapping) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        elif isinstance(part, Mapping):
            parts.append(f"[{part.get('type', 'attachment')}]")
    return "\n".join(parts)


def transcript_prompt(messages: Sequence[Mapping[str, Any]]) -> str:
    system = " ".join(_text(m.get("content")).strip() for m in messages if m.get("role") == "system").strip()
    lines = [f"{PREAMBLE} {system}".strip(), "", EXAMPLE.rstrip("\n")]
    for message in messages:
        role, text = message.get("role"), _text(message.get("content")).strip()
        if role == "user":
            lines.append(f"User: {text}")
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            names = ", ".join(c.get("function", {}).get("name", "?") for c in calls)
            lines.append(f"Assistant: {text}" + (f" [called {names}]" if names else ""))
        elif role == "tool":
            lines.append(f"Tool result: {text}")
    lines.append("Assistant:")
    return "\n".join(lines)


# The same prompt as Jinja, as llama.cpp's server applies a chat template (the server builds the prompt);
# tests/engine/local/test_local_model.py checks that both write the same text.
TEMPLATE = (
    # every literal is an expression: `-%}` strips the text after a tag, newlines included
    "{%- set ns = namespace(system='') -%}"
    "{%- for m in messages if m.role == 'system' -%}"
    "{%- set ns.system = ns.system ~ ' ' ~ (m.content | trim) -%}"
    "{%- endfor -%}"
    "{{- ('" + PREAMBLE + " ' ~ (ns.system | trim)) | trim -}}"
    "{{- '\\n\\n" + EXAMPLE.rstrip("\n").replace("\n", "\\n") + "' -}}"
    "{%- for m in messages -%}"
    "{%- if m.role == 'user' -%}{{- '\\nUser: ' ~ (m.content | trim) -}}"
    "{%- elif m.role == 'assistant' -%}{{- '\\nAssistant: ' ~ ((m.content or '') | trim) -}}"
    "{%- if m.tool_calls -%}{{- ' [called ' -}}"
    "{%- for c in m.tool_calls -%}{{- (', ' if not loop.first else '') ~ c.function.name -}}{%- endfor -%}"
    "{{- ']' -}}{%- endif -%}"
    "{%- elif m.role == 'tool' -%}{{- '\\nTool result: ' ~ (m.content | trim) -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{{- '\\nAssistant:' -}}"
)
