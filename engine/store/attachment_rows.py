"""Attachments stored once: a message's payload keeps each attachment's mark and an empty text, and the
`attachments` table keeps the content by its SHA-256, so a file attached twice (or in two conversations)
is one row. The hash is always computed here from the content: a mark read from an import is data."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from dataclasses import replace
from typing import Any

from ..attachments import ATTACHMENT_KEY, attachment_of, header
from ..messages import FrozenDict
from .records import StoredMessage


def stored_once(db: sqlite3.Connection, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` with each attachment's content moved to the `attachments` table (its text left empty)."""
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
        mark = {**meta, "sha256": digest}
        if part.get("type") == "image_url":
            parts.append({**part, "image_url": {"url": ""}, ATTACHMENT_KEY: mark})
        else:
            parts.append({**part, "text": "", ATTACHMENT_KEY: {**mark, "bytes": len(encoded)}})
    return {**payload, "content": parts}


def _content(part: dict[str, Any], meta: Any) -> str:
    """What an attachment part holds: an image's `data:` URL, or a text's body (its header line dropped)."""
    if part.get("type") == "image_url":
        image = part.get("image_url")
        return str(image.get("url", "")) if isinstance(image, dict) else str(image or "")
    text = str(part.get("text", ""))
    first, _, body = text.partition("\n")
    return body if first == header(str(meta["name"]), int(meta.get("bytes", 0))) else text


def hydrated(db: sqlite3.Connection, stored: StoredMessage) -> StoredMessage:
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
        row = db.execute("SELECT content FROM attachments WHERE sha256 = ?", (str(meta.get("sha256")),)).fetchone()
        body = row[0] if row is not None else "[the attached content is missing from the database]"
        if image:
            parts.append(FrozenDict({**part, "image_url": FrozenDict({"url": body})}))
        else:
            text = f"{header(str(meta['name']), int(meta.get('bytes', 0)))}\n{body}"
            parts.append(FrozenDict({**part, "text": text}))
    message = stored.message.evolve(content=tuple(parts))
    return replace(stored, message=message)


def _url(part: Any) -> str:
    image = part.get("image_url")
    return str(image.get("url", "")) if hasattr(image, "get") else str(image or "")


def attachment_count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0])
