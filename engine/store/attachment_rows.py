"""Attachments stored once: a message's payload keeps each attachment's mark and an empty text, and the
`attachments` table keeps the content by its SHA-256, so a file attached twice (or in two conversations)
is one row. The hash is always computed here from the content: a mark read from an import is data."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..attachments import ATTACHMENT_KEY, attachment_of, clean_name, header, size_of
from ..messages import FrozenDict
from .records import StoredMessage


def stored_once(db: sqlite3.Connection, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` with each attachment's content moved to the `attachments` table (its text left empty)."""
    import hashlib  # only a message with attachments hashes: reading the store loads no OpenSSL

    content = payload.get("content")
    if not isinstance(content, list) or not any(isinstance(p, dict) and ATTACHMENT_KEY in p for p in content):
        return payload
    parts = []
    for part in content:
        meta = attachment_of(part) if isinstance(part, dict) else None
        if meta is None:
            parts.append(part)
            continue
        body = _content(part, meta)
        encoded = body.encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(encoded).hexdigest()
        db.execute(
            "INSERT OR IGNORE INTO attachments (sha256, content, bytes, created_at) VALUES (?, ?, ?, ?)",
            (digest, body, len(encoded), time.time()),
        )
        # the mark is rebuilt from what is known here: one read from an import is data
        mark = {"name": clean_name(str(meta["name"])), "sha256": digest, "bytes": size_of(meta) or len(encoded)}
        if part.get("type") == "image_url":
            mime = meta.get("mime")
            image_mark = {**mark, **({"mime": mime} if isinstance(mime, str) else {})}
            parts.append({**part, "image_url": {"url": ""}, ATTACHMENT_KEY: image_mark})
        else:
            sent = meta.get("sent_chars")  # a file bigger than the room is sent cut (attachment_fit.py)
            cut = {"sent_chars": sent} if isinstance(sent, int) and not isinstance(sent, bool) and sent >= 0 else {}
            parts.append({**part, "text": "", ATTACHMENT_KEY: {**mark, "bytes": len(encoded), **cut}})
    return {**payload, "content": parts}


def _content(part: dict[str, Any], meta: Any) -> str:
    """What an attachment part holds: an image's `data:` URL, or a text's body (its header line dropped)."""
    if part.get("type") == "image_url":
        image = part.get("image_url")
        return str(image.get("url", "")) if isinstance(image, dict) else str(image or "")
    text = str(part.get("text", ""))
    first, _, body = text.partition("\n")
    return body if first == header(str(meta["name"]), size_of(meta)) else text


Query = Callable[[str, Sequence[Any]], list[sqlite3.Row]]


def hydrated(query: Query, stored: StoredMessage) -> StoredMessage:
    """`stored` with each attachment's content read back from the `attachments` table."""
    content = stored.message.content
    if not isinstance(content, tuple) or not any(attachment_of(p) is not None for p in content):
        return stored
    parts = []
    for part in content:
        meta = attachment_of(part)
        image = part.get("type") == "image_url"
        if meta is None or (part.get("text") if not image else _url(part)):
            parts.append(part)
            continue
        rows = query("SELECT content FROM attachments WHERE sha256 = ?", (str(meta.get("sha256")),))
        row = rows[0] if rows else None
        body = row[0] if row is not None else "[the attached content is missing from the database]"
        if image and row is None:  # a note a model can read, not a URL every provider would reject
            parts.append(FrozenDict({"type": "text", "text": f"[{meta['name']}: {body}]", ATTACHMENT_KEY: meta}))
        elif image:
            parts.append(FrozenDict({**part, "image_url": FrozenDict({"url": body})}))
        else:
            text = f"{header(str(meta['name']), size_of(meta))}\n{body}"
            parts.append(FrozenDict({**part, "text": text}))
    message = stored.message.evolve(content=tuple(parts))
    return stored._replace(message=message)


def _url(part: Any) -> str:
    image = part.get("image_url")
    return str(image.get("url", "")) if hasattr(image, "get") else str(image or "")


def forget_unreferenced(db: sqlite3.Connection) -> None:
    """Drop the contents no message refers to any more (their conversation was deleted): a file attached
    once must not outlive the conversation it was attached to."""
    db.execute(
        "DELETE FROM attachments WHERE sha256 NOT IN (SELECT json_extract(part.value, '$.foldchat_attachment.sha256')"
        " FROM messages m, json_each(m.payload, '$.content') part WHERE json_type(m.payload, '$.content') = 'array'"
        " AND json_extract(part.value, '$.foldchat_attachment.sha256') IS NOT NULL)"
    )
