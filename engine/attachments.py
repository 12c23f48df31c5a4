"""Attachments: files and command output brought into a conversation as known units with a name.

An attachment is a text part of a user message, marked as Foldchat's (`ATTACHMENT_KEY`: name, size, hash)
and opening with a one-line header that names it, so every provider reads it as text and the mark is
taken off before a request is sent (`providers/adapt.py`). The store keeps each content once, by its
SHA-256 (`store/`); the fold prunes an older attachment to a one-line stub before it summarizes anything
(`fold/prune.py`), and `recall` brings it back by its name. What is attached is checked first: text only
(no NUL bytes, valid UTF-8), within a size cap, with one-line errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .errors import InputTooLarge, UsageError
from .messages import FrozenDict, Message

ATTACHMENT_KEY = "foldchat_attachment"
"""The mark of an attachment part: {"name", "bytes", "sha256"}. Ours, so never sent to a provider."""
BINARY_SNIFF_BYTES = 8192


class Attachment(NamedTuple):
    """A file attached to a message: its name, its content and what it is. (A named tuple: `foldchat show`
    defines it on every start, and a frozen dataclass costs ~1 ms to define here.)"""

    name: str
    text: str
    """The content: the file's text, or for an image its `data:` URL (base64)."""
    size: int
    sha256: str
    mime: str = "text/plain"

    @property
    def is_image(self) -> bool:
        return self.mime.startswith("image/")


# the image formats providers take, by the bytes they start with
IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(data: bytes) -> str | None:
    """The MIME type of a png, jpeg, gif or webp image, from its first bytes (None for anything else)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in IMAGE_MAGIC if data.startswith(magic)), None)


def read_attachment(name: str, data: bytes, limit: int) -> Attachment:
    """`data` (a file's bytes, or what a command wrote) as an attachment called `name`: text, or a png, jpeg,
    gif or webp image; else a one-line error: too big, binary, or not UTF-8."""
    import base64
    import hashlib  # here, not at the top: OpenSSL's start-up is paid by what attaches, not by `foldchat list`

    if len(data) > limit:
        raise InputTooLarge(
            f"{name} is {human_size(len(data))}, over the {human_size(limit)} limit for one attachment "
            "(max_attachment_bytes in config.toml)"
        )
    name = clean_name(name)
    mime = image_type(data)
    if mime is not None:  # hashed as stored: the `data:` URL (the store hashes what it keeps)
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return Attachment(name, url, len(data), hashlib.sha256(url.encode()).hexdigest(), mime)
    digest = hashlib.sha256(data).hexdigest()
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise UsageError(f"{name} is a binary file: only text and png, jpeg, gif or webp images can be attached")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{name} is not UTF-8 text (byte {error.start}): convert it first, e.g. with iconv") from None
    return Attachment(name, text, len(data), digest)


def size_of(meta: Mapping[str, Any]) -> int:
    """An attachment mark's size; a mark read from an import is data, so anything but a count is 0."""
    size = meta.get("bytes")
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else 0


def clean_name(name: str) -> str:
    """A file name fit for a one-line header: control characters (a newline) become spaces, length bounded."""
    return "".join(" " if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in name)[:255] or "unnamed"


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
    if attachment.is_image:
        return {
            "type": "image_url",
            "image_url": {"url": attachment.text},
            ATTACHMENT_KEY: {**meta, "mime": attachment.mime},
        }
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


def with_text(message: Message, text: str) -> Message:
    """A user message saying `text` with what `message` attached (an edited prompt keeps its files)."""
    if not isinstance(message.content, tuple) or not attachments_in(message):
        return Message.user(text)
    kept = [dict(part) for part in message.content if attachment_of(part) is not None]
    return Message.from_dict({"role": "user", "content": [*kept, {"type": "text", "text": text}]})


def attachment_of(part: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The mark of an attachment part, text or image (None for any other part)."""
    meta = part.get(ATTACHMENT_KEY) if part.get("type") in ("text", "image_url") else None
    return meta if isinstance(meta, Mapping) and isinstance(meta.get("name"), str) else None


def attachments_in(message: Message) -> list[Mapping[str, Any]]:
    """The marks of `message`'s attachments, in order."""
    if not isinstance(message.content, tuple):
        return []
    return [meta for part in message.content if (meta := attachment_of(part)) is not None]


STUB_MARK = "[attached "


def is_stubbed(part: Mapping[str, Any]) -> bool:
    """A part the fold pruned to its stub (a flag in the mark: a file that says "returns it]" is not one;
    the store never keeps the flag, so an import cannot forge it)."""
    meta = attachment_of(part)
    return meta is not None and meta.get("pruned") is True


def recall_hint(name: str) -> str:
    """How a stub tells a model offered `recall` to get the file back (recall_wording.py: others are not told)."""
    return f'recall("{name}") returns it'


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
        name, size = str(meta["name"]), size_of(meta)
        text = f"[attached {name}, {human_size(size)}, message #{number} — {recall_hint(name)}]"
        parts.append(FrozenDict({"type": "text", "text": text, ATTACHMENT_KEY: FrozenDict({**meta, "pruned": True})}))
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


def shown_attachments(message: Message) -> list[tuple[str, str]]:
    """Each attachment of `message` as a face shows it: a title (name, size; image or pruned said) and the
    content (the file's text, without its header; a word for an image or a stub)."""
    if not isinstance(message.content, tuple):
        return []
    out = []
    for part in message.content:
        meta = attachment_of(part)
        if meta is None:
            continue
        title = f"{meta['name']} · {human_size(size_of(meta))}"
        if part.get("type") == "image_url":
            out.append((f"{title} · image", "(an image: sent to models that take images)"))
        elif is_stubbed(part):
            out.append((f"{title} · pruned", str(part.get("text", ""))))
        else:
            out.append((title, str(part.get("text", "")).partition("\n")[2]))
    return out


def changed_since(transcript: Sequence[Message], attachment: Attachment) -> int | None:
    """The 1-based number of the latest message that attached a different version of `attachment` (same
    name, other content), when that is the latest version attached; None when it is new or unchanged."""
    for number in range(len(transcript), 0, -1):
        for meta in attachments_in(transcript[number - 1]):
            if meta["name"] == attachment.name:
                return None if meta.get("sha256") == attachment.sha256 else number
    return None


def names(messages: Iterable[Message]) -> list[str]:
    """The names of every attachment in `messages`, in order."""
    return [str(meta["name"]) for message in messages for meta in attachments_in(message)]
