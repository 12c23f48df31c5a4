"""What the store hands out: conversations, messages and folds as immutable records, read from their rows.

Named tuples rather than dataclasses: `foldchat list` and `show` build them on every start, and a frozen
dataclass costs ~1-2 ms to define on this machine (its methods are compiled from source), a named tuple ~0.2."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:  # the store's decoder loads it: listing conversations reads no message
    from ..messages import Message
    from .attachment_rows import Query

Status = Literal["complete", "streaming", "interrupted", "error", "unsent"]


class Conversation(NamedTuple):
    id: int
    title: str
    model: str | None
    created_at: float
    updated_at: float
    message_count: int = 0


class SearchHit(NamedTuple):
    """A conversation found by `Store.search`: the line of the message that matched ("" for a title)."""

    conversation: Conversation
    excerpt: str
    message_id: int | None = None


class StoredMessage(NamedTuple):
    id: int
    conversation_id: int
    message: Message
    status: Status
    model: str | None
    tokens: int | None
    cost: float
    error: str | None
    created_at: float
    superseded_by: int | None = None


class StoredFold(NamedTuple):
    id: int
    conversation_id: int
    parent_fold_id: int | None
    depth: int
    first_message_id: int
    last_message_id: int
    snapshot: dict[str, Any]
    edited_text: str | None
    summarizer: str
    trigger: str
    tokens_before: int
    tokens_after: int
    created_at: float
    undone_at: float | None
    damaged: bool = False
    """Its snapshot could not be read back (a damaged or hand-edited file): it counts as undone."""


TITLE_CHARS = 60


def transcript_numbers(transcript_ids: Sequence[int]) -> dict[int, int]:
    """Message id -> its 1-based position in the conversation's transcript (the numbers users see; ids are
    shared by all conversations)."""
    return {message_id: number for number, message_id in enumerate(transcript_ids, start=1)}


def title_of(text: str) -> str:
    """A conversation's title from its first message: one line, cut at a word with "…" (not "rip b")."""
    line = " ".join(text.split())
    if len(line) <= TITLE_CHARS:
        return line
    cut = line[:TITLE_CHARS]
    space = cut.rfind(" ")
    return (cut[:space] if space > TITLE_CHARS // 2 else cut).rstrip(" ,.;:-") + "…"


def conversation_of(row: sqlite3.Row) -> Conversation:
    return Conversation(row["id"], row["title"], row["model"], row["created_at"], row["updated_at"], row["n"])


def decoder(query: Query) -> Callable[[sqlite3.Row], StoredMessage]:
    """Message rows to stored messages, their attachments read back through `query` (the store's, which holds
    its lock). The modules are imported here, once per read: not at the top (`list` needs neither), nor once
    per row (~4 µs a row: 45 ms of a 10,000-message transcript)."""
    from ..messages import Message
    from .attachment_rows import hydrated

    def decoded(row: sqlite3.Row) -> StoredMessage:
        return hydrated(query, stored_message_of(row, Message.from_dict(json.loads(row["payload"]), key=row["id"])))

    return decoded


def stored_message_of(row: sqlite3.Row, message: Message) -> StoredMessage:
    """The stored message of `row`, whose payload is `message`."""
    return StoredMessage(
        row["id"], row["conversation_id"], message, row["status"], row["model"], row["tokens"], row["cost"],
        row["error"], row["created_at"], row["superseded_by"],
    )  # fmt: skip


def stored_fold_of(row: sqlite3.Row) -> StoredFold:
    snapshot = _snapshot(row["snapshot"])
    return StoredFold(
        row["id"], row["conversation_id"], row["parent_fold_id"], row["depth"], row["first_message_id"],
        row["last_message_id"], snapshot or {}, row["edited_text"], row["summarizer"], row["trigger"],
        row["tokens_before"], row["tokens_after"], row["created_at"], row["undone_at"], snapshot is None,
    )  # fmt: skip


def _snapshot(stored: object) -> dict[str, Any] | None:
    """A fold's stored snapshot, or None when the file holds anything but the JSON object Foldchat wrote:
    cut short, edited by hand, another type (SQLite keeps any), or past Python's limits (4,300 digits, depth)."""
    try:
        value = json.loads(stored)  # type: ignore[arg-type]  # whatever the column holds: a TypeError is damage too
    except (ValueError, TypeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def damaged_folds_notice(folds: Sequence[StoredFold]) -> str | None:
    """One line telling the user which of a conversation's folds could not be read, or None if all can."""
    damaged = [str(f.id) for f in folds if f.damaged and f.undone_at is None]
    if not damaged:
        return None
    which = f"fold {damaged[0]} is" if len(damaged) == 1 else f"folds {', '.join(damaged)} are"
    return (
        f"{which} damaged in the database (the snapshot is not valid JSON): treated as undone, "
        "the conversation goes on without it"
    )
