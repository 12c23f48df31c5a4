"""Attachments: files and command output brought into a conversation as known units with a name.

An attachment is a text part of a user message, marked as Foldchat's (`ATTACHMENT_KEY`: name, size, hash)
and opening with a one-line header that names it, so every provider reads it as text and the mark is
taken off before a request is sent (`providers/adapt.py`). The store keeps each content once, by its
SHA-256 (`store/`); the fold prunes an older attachment to a one-line stub before it summarizes anything
(`fold/prune.py`), and `recall` brings it back by its name. What is attached is checked first: text only
(no NUL bytes, valid UTF-8), within a size cap, with one-line errors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputTooLarge, UsageError
from .messages import FrozenDict, Message

ATTACHMENT_KEY = "foldchat_attachment"
"""The mark of an attachment part: {"name", "bytes", "sha256"}. Ours, so never sent to a provider."""
BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Attachment:
    name: str
    text: str
    size: int
    sha256: str


def read_attachment(name: str, data: bytes, limit: int) -> Attachment:
    """`data` (a file's bytes, or what a command wrote) as an attachment called `name`, or a one-line error:
    too big, binary, or not UTF-8."""
    if len(data) > limit:
        raise InputTooLarge(
            f"{name} is {human_size(len(data))}, over the {human_size(limit)} limit for one attachment "
            "(max_attachment_bytes in config.toml)"
        )
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise UsageError(f"{name} is a binary file: only text can be attached")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{name} is not UTF-8 text (byte {error.start}): convert it first, e.g. with iconv") from None
    return Attachment(name, text, len(data), hashlib.sha256(data).hexdigest())


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def header(name: str, size: int) -> str:
    return f"[attached {name}, {human_size(size)}]"


def attachment_part(attachment: Attachment) -> dict[str, Any]:
    meta = {"name": attachment.name, "bytes": attachment.size, "sha256": attachment.sha256}
    return {
        "type": "text",
        "text": f"{header(attachment.name, attachment.size)}\n{attachment.text}",
        ATTACHMENT_KEY: meta,
    }


def user_message(prompt: str, attachments: Sequence[Attachment] = ()) -> Message:
    """The user's message: the prompt alone, or each attachment as a part and the prompt last."""
    if not attachments:
        return Message.user(prompt)
    parts = [attachment_part(a) for a in attachments]
    return Message.from_dict({"role": "user", "content": [*parts, {"type": "text", "text": prompt}]})


def attachment_of(part: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The mark of an attachment part (None for any other part)."""
    meta = part.get(ATTACHMENT_KEY) if part.get("type") == "text" else None
    return meta if isinstance(meta, Mapping) and isinstance(meta.get("name"), str) else None


def attachments_in(message: Message) -> list[Mapping[str, Any]]:
    """The marks of `message`'s attachments, in order."""
    if not isinstance(message.content, tuple):
        return []
    return [meta for part in message.content if (meta := attachment_of(part)) is not None]


STUB_MARK = "[attached "


def is_stubbed(part: Mapping[str, Any]) -> bool:
    return attachment_of(part) is not None and " returns it]" in str(part.get("text", ""))[:400]


def stubbed(message: Message, number: int) -> Message:
    """`message` with each attachment it carries replaced by a one-line stub naming where it is."""
    if not isinstance(message.content, tuple):
        return message
    parts = []
    for part in message.content:
        meta = attachment_of(part)
        if meta is None or is_stubbed(part):
            parts.append(part)
            continue
        name, size = str(meta["name"]), int(meta.get("bytes", 0))
        text = f'[attached {name}, {human_size(size)}, message #{number} — recall("{name}") returns it]'
        parts.append(FrozenDict({**part, "text": text}))
    return message.evolve(content=tuple(parts))


def without_marks(content: object) -> object:
    """`content` with our attachment marks taken off its parts (what a provider is sent)."""
    if not isinstance(content, tuple) or not any(ATTACHMENT_KEY in part for part in content):
        return content
    return tuple(FrozenDict({k: v for k, v in part.items() if k != ATTACHMENT_KEY}) for part in content)


def said(message: Message) -> str:
    """What the person wrote, without what they attached (a title, a preview)."""
    if not isinstance(message.content, tuple) or not attachments_in(message):
        return message.text
    return "\n".join(
        str(p.get("text", "")) for p in message.content if p.get("type") == "text" and not attachment_of(p)
    )


def names(messages: Iterable[Message]) -> list[str]:
    """The names of every attachment in `messages`, in order."""
    return [str(meta["name"]) for message in messages for meta in attachments_in(message)]
