"""What automatic recall put into a request, stored beside the user message it was found for (table
`recalls`, docs/design.md §14): the faces show it again after a restart."""

from __future__ import annotations

import time

from .store import Store


def set_recall(store: Store, message_id: int, payload: str) -> None:
    """Store what recall added to the request answering `message_id` (the latest request wins)."""
    with store.transaction() as db:
        db.execute(
            "INSERT OR REPLACE INTO recalls (message_id, payload, created_at) VALUES (?, ?, ?)",
            (message_id, payload, time.time()),
        )


def recalls(store: Store, conversation_id: int) -> dict[int, str]:
    """Message id -> what was recalled for it, for a conversation's messages."""
    rows = store.query(
        "SELECT r.message_id, r.payload FROM recalls r JOIN messages m ON m.id = r.message_id"
        " WHERE m.conversation_id = ?",
        (conversation_id,),
    )
    return {int(row[0]): str(row[1]) for row in rows}


def recall_of(store: Store, message_id: int) -> str | None:
    """What was recalled for one message, if anything."""
    rows = store.query("SELECT payload FROM recalls WHERE message_id = ?", (message_id,))
    return str(rows[0][0]) if rows else None
