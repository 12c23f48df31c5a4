"""Bringing conversations in: a JSON array of OpenAI chat messages, or a ChatGPT data export.

The messages are stored exactly as given (same keys, same values, same order); adaptation to a
provider happens only at send time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import UsageError
from .messages import Message, parse_messages
from .store import Store


@dataclass(frozen=True)
class ImportedConversation:
    title: str
    raw: list[dict[str, Any]]


def _chatgpt_conversation(data: dict[str, Any], number: int) -> ImportedConversation:
    mapping = data.get("mapping")
    if not isinstance(mapping, dict):
        raise UsageError(f"conversation {number} of the ChatGPT export has no 'mapping'")
    node_id = data.get("current_node")
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while node_id and node_id in mapping and node_id not in seen:  # walk back from the shown branch
        seen.add(node_id)
        node = mapping[node_id]
        path.append(node)
        node_id = node.get("parent")
    raw = []
    for node in reversed(path):
        message = node.get("message") or {}
        role = (message.get("author") or {}).get("role")
        parts = (message.get("content") or {}).get("parts") or []
        text = "\n".join(p for p in parts if isinstance(p, str)).strip()
        if role in ("user", "assistant", "system") and text:
            raw.append({"role": role, "content": text})
    return ImportedConversation(str(data.get("title") or f"Imported {number}"), raw)


def read_conversations(data: Any) -> list[ImportedConversation]:
    """What `data` (parsed JSON) holds: one OpenAI message list, or the conversations of a ChatGPT export."""
    if isinstance(data, list) and data and all(isinstance(c, dict) and "mapping" in c for c in data):
        return [_chatgpt_conversation(c, n) for n, c in enumerate(data, start=1)]
    if isinstance(data, list):
        parse_messages(data)  # validates, with the first problem named
        first_user = next((m for m in data if m.get("role") == "user" and isinstance(m.get("content"), str)), None)
        title = " ".join(str(first_user["content"]).split())[:60] if first_user else "Imported conversation"
        return [ImportedConversation(title, data)]
    raise UsageError("expected a JSON array of chat messages or a ChatGPT export (conversations.json)")


def import_conversations(store: Store, data: Any, model: str | None = None) -> list[int]:
    ids = []
    for conversation in read_conversations(data):
        cid = store.create_conversation(title=conversation.title, model=model)
        for index, raw in enumerate(conversation.raw):
            message = Message.from_dict(raw, index)
            store.append(cid, message, payload=raw)
        ids.append(cid)
    return ids
