"""A conversation as Markdown or JSON (the transcript, every message, with its folds)."""

from __future__ import annotations

import json

from .snapshot import snapshot_text
from .store import Store, StoredMessage


def status_suffix(stored: StoredMessage) -> str:
    if stored.status == "complete":
        return ""
    return f" [{stored.status}{': ' + stored.error if stored.error else ''}]"


def export_conversation(store: Store, conversation_id: int, fmt: str) -> str:
    conversation = store.conversation(conversation_id)
    messages = store.messages(conversation_id)
    if fmt == "json":
        data = {
            "id": conversation.id,
            "title": conversation.title,
            "model": conversation.model,
            "messages": [
                {"id": m.id, "status": m.status, "model": m.model, "message": m.message.to_dict()} for m in messages
            ],
            "folds": [
                {"id": f.id, "covers": [f.first_message_id, f.last_message_id], "snapshot": snapshot_text(f),
                 "summarizer": f.summarizer, "trigger": f.trigger, "tokens_before": f.tokens_before,
                 "tokens_after": f.tokens_after}
                for f in store.folds(conversation_id)
            ],
        }  # fmt: skip
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    lines = [f"# {conversation.title or 'untitled'}", ""]
    for stored in messages:
        message = stored.message
        lines += [f"## {message.role}{status_suffix(stored)}", "", message.text]
        lines += [f"\n`{call.name}({call.arguments})`" for call in message.tool_calls]
        lines.append("")
    return "\n".join(lines)
