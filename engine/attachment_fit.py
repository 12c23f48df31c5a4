"""Attachments bigger than the room (docs/design.md §13, §14): a file that does not fit the window is not
refused. It is stored whole (the transcript keeps every word); the request carries its start, as much as
fits, with one line saying so; and recall at every send brings back the parts that a message asks about
("what does harbour_settings.py set for pier 7?"), from the stored whole.

The cut is a mark on the attachment (`sent_chars`), set when the message is stored and applied whenever
the context is built (`as_sent`): every count, fold and request sees the same message.
"""

from __future__ import annotations

from collections.abc import Callable

from .attachments import ATTACHMENT_KEY, attachment_of, header, size_of
from .messages import FrozenDict, Message

SENT_KEY = "sent_chars"


def fitted(message: Message, room: int, count_text: Callable[[str], int]) -> Message:
    """`message` with its text attachments marked to be sent cut (their start) when the whole message takes
    more than `room` tokens; unchanged when it fits or holds no text attachment."""
    if not isinstance(message.content, tuple) or room <= 0:
        return message
    total = count_text(message.text)
    parts = [p for p in message.content if attachment_of(p) is not None and p.get("type") == "text"]
    if total <= room or not parts:
        return message
    attached = sum(count_text(str(p.get("text", ""))) for p in parts)
    share = max(0.0, (room - (total - attached) - 60 * len(parts)) / max(1, attached))  # 60: each cut's note
    out = []
    for part in message.content:
        meta = attachment_of(part)
        if meta is None or part.get("type") != "text":
            out.append(part)
            continue
        text = str(part.get("text", ""))
        keep = int(len(text) * share * 0.95)
        keep = text.rfind("\n", 0, keep) + 1 or keep  # at a line's end, where there is one
        out.append(FrozenDict({**part, ATTACHMENT_KEY: FrozenDict({**meta, SENT_KEY: keep})}))
    return message.evolve(content=tuple(out))


def as_sent(message: Message) -> Message:
    """`message` as a request carries it: each attachment marked `sent_chars` cut to its start, with a line
    saying how much of it is sent and that the rest is recalled by what is asked."""
    if not isinstance(message.content, tuple) or not any(_cut_at(p) is not None for p in message.content):
        return message
    parts = []
    for part in message.content:
        keep = _cut_at(part)
        if keep is None:
            parts.append(part)
            continue
        meta = attachment_of(part) or {}
        name = str(meta.get("name", "the file"))
        text = str(part.get("text", ""))
        head = header(name, size_of(meta))
        body = text[len(head) + 1 :] if text.startswith(head + "\n") else text
        note = (f"[{name}: too big for the window; its first {keep:,} of {len(body):,} characters are sent. "
                "The rest is stored: Foldchat recalls the parts a message asks about.]")  # fmt: skip
        parts.append(FrozenDict({**part, "text": f"{head}\n{body[:keep]}\n{note}"}))
    return message.evolve(content=tuple(parts))


def _cut_at(part: object) -> int | None:
    meta = attachment_of(part) if isinstance(part, FrozenDict | dict) else None
    keep = meta.get(SENT_KEY) if meta is not None else None
    return keep if isinstance(keep, int) and not isinstance(keep, bool) and keep >= 0 else None
