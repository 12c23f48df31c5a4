"""Bringing conversations in: a JSON array of OpenAI chat messages, or a ChatGPT data export.

The messages are stored exactly as given (same keys, same values, same order); adaptation to a
provider happens only at send time. Every conversation is read and validated in full before
anything is written, and each is stored in one transaction: a bad file leaves nothing behind, so a
retry cannot duplicate what an earlier attempt stored.

A ChatGPT export is someone else's file: any field may be missing, null or of another type. Odd
nodes are skipped, a parent chain that loops is followed once, and a conversation with no usable
`mapping` is named in a `UsageError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import UsageError
from .messages import Message, parse_messages
from .store import Store
from .store.records import title_of

_CHATGPT_KEYS = ("mapping", "current_node")


@dataclass(frozen=True)
class ImportedConversation:
    title: str
    raw: list[dict[str, Any]]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _node_text(node: dict[str, Any]) -> tuple[Any, str]:
    message = _object(node.get("message"))
    role = _object(message.get("author")).get("role")
    parts = _object(message.get("content")).get("parts")
    texts = [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []
    return role, "\n".join(texts).strip()


def _chatgpt_conversation(data: Any, number: int) -> ImportedConversation:
    if not isinstance(data, dict):
        raise UsageError(f"conversation {number} of the ChatGPT export is not an object")
    mapping = data.get("mapping")
    if not isinstance(mapping, dict):
        raise UsageError(f"conversation {number} of the ChatGPT export has no 'mapping'")
    node_id = data.get("current_node")
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    # walk back from the branch the user last saw; ids that are not strings end the walk
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = _object(mapping[node_id])
        path.append(node)
        node_id = node.get("parent")
    raw = []
    for node in reversed(path):
        role, text = _node_text(node)
        if role in ("user", "assistant", "system") and text:
            raw.append({"role": role, "content": text})
    title = data.get("title")
    return ImportedConversation(title if isinstance(title, str) and title else f"Imported {number}", raw)


def _is_chatgpt_export(data: list[Any]) -> bool:
    return any(isinstance(c, dict) and any(k in c for k in _CHATGPT_KEYS) for c in data)


def read_conversations(data: Any) -> list[ImportedConversation]:
    """What `data` (parsed JSON) holds: one OpenAI message list, or the conversations of a ChatGPT export."""
    if isinstance(data, list) and data and _is_chatgpt_export(data):
        return [_chatgpt_conversation(c, n) for n, c in enumerate(data, start=1)]
    if isinstance(data, list):
        parse_messages(data)  # validates, with the first problem named
        first_user = next((m for m in data if m.get("role") == "user" and isinstance(m.get("content"), str)), None)
        title = title_of(str(first_user["content"])) if first_user else "Imported conversation"
        return [ImportedConversation(title, data)]
    raise UsageError("expected a JSON array of chat messages or a ChatGPT export (conversations.json)")


def import_conversations(store: Store, data: Any, model: str | None = None) -> list[int]:
    conversations = read_conversations(data)
    # validate everything first: a bad message in conversation 3 must not leave 1 and 2 half-imported
    prepared = [
        (c.title, [(Message.from_dict(raw, index), raw) for index, raw in enumerate(c.raw)]) for c in conversations
    ]
    return [store.add_conversation(title, messages, model=model) for title, messages in prepared]
