"""A conversation as Markdown or JSON (the transcript, every message, with its folds), and the file it goes to.

Exports hold conversations, so they are private (0600) and written only to new files: an existing
name, or a symlink planted under that name, is never overwritten or followed; the next free name
(`foldchat-2-2.md`, ...) is used instead. By default they go to the `exports` folder of Foldchat's
data dir, never to whatever the working directory happens to be. Each Markdown heading carries the message's
number in its conversation (what `show`, the app and snapshots cite); replies that a regenerate replaced are
marked `superseded by #N`; replies with no text and no tool calls (an interrupted start) are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from .attachments import attachment_of, attachments_in, human_size, said, size_of
from .errors import ExportError, StorageError
from .messages import Message
from .paths import create_private_file, export_dir
from .replies_cut import is_cut_mark
from .store import Store, StoredFold, StoredMessage
from .store.records import transcript_numbers
from .untrusted_text import json_safe, visible

FORMATS = ("md", "json")


def status_suffix(stored: StoredMessage, numbers: Mapping[int, int]) -> str:
    """What is worth knowing of a stored message beyond its words: not complete, cut, or replaced, by the
    message numbered in `numbers` (id -> the conversation's own number: database ids are shared by all)."""
    marks = []
    if stored.status != "complete":
        marks.append(f"{stored.status}{': ' + stored.error if stored.error else ''}")
    elif is_cut_mark(stored.error):  # complete, but the output cap ended it
        marks.append(str(stored.error))
    if stored.superseded_by is not None:
        by = numbers.get(stored.superseded_by)
        marks.append(f"superseded by #{by}" if by is not None else "superseded")
    return f" [{'; '.join(marks)}]" if marks else ""


def fold_line(fold: StoredFold, covered: int, numbers: Mapping[int, int]) -> str:
    """What `show` and the Markdown export say where a fold's span ends: how many messages it stands for (the
    count the app shows), their numbers, the tokens before and after, and who wrote the snapshot."""
    first, last = numbers.get(fold.first_message_id, 0), numbers.get(fold.last_message_id, 0)
    return (
        f"── folded {covered} messages ({first}..{last}) · {fold.tokens_before:,} → {fold.tokens_after:,} tokens · "
        f"{' '.join(fold.summarizer.split())} ──"  # one line: it can quote a provider's error, newlines and all
    )


def _worth_exporting(stored: StoredMessage) -> bool:
    message = stored.message
    return bool(message.text.strip() or message.tool_calls) or message.role == "system"


def export_conversation(store: Store, conversation_id: int, fmt: str) -> str:
    from .snapshot import snapshot_text  # the schema: `show` imports this module for its two lines only

    conversation = store.conversation(conversation_id)
    transcript = store.messages(conversation_id)
    ids = [m.id for m in transcript]
    numbers = transcript_numbers(ids)
    messages = [m for m in transcript if _worth_exporting(m)]
    if fmt == "json":
        data = {
            "id": conversation.id,
            "title": conversation.title,
            "model": conversation.model,
            "messages": [
                {"id": m.id, "status": m.status, "model": m.model, "superseded_by": m.superseded_by,
                 "message": m.message.to_dict()}
                for m in messages
            ],
            "folds": [
                {"id": f.id, "covers": [f.first_message_id, f.last_message_id], "snapshot": snapshot_text(f),
                 "summarizer": f.summarizer, "trigger": f.trigger, "tokens_before": f.tokens_before,
                 "tokens_after": f.tokens_after}
                for f in store.folds(conversation_id)
            ],
        }  # fmt: skip
        return json_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"
    from .fold.layout import covered_messages

    folds = {f.last_message_id: f for f in store.folds(conversation_id)}  # the chain in force, as `show` marks it
    lines = [f"# {conversation.title or 'untitled'}", ""]
    for stored in transcript:  # a fold can end on a message left out here (an empty, interrupted reply)
        message = stored.message
        if _worth_exporting(stored):
            number = numbers[stored.id]
            lines += [f"## [{number}] {message.role}{status_suffix(stored, numbers)}", "", *_markdown_text(message)]
            lines += [f"\n`{call.name}({call.arguments})`" for call in message.tool_calls]
            lines.append("")
        if (fold := folds.get(stored.id)) is not None:
            lines += [f"> {fold_line(fold, covered_messages(fold, ids), numbers)}", "", "<details><summary>the state "
                      "snapshot sent instead</summary>", "", _fenced(snapshot_text(fold)), "", "</details>", ""]  # fmt: skip
    return visible("\n".join(lines))


def _fenced(body: str) -> str:
    """`body` in a code fence longer than any run of backticks it holds, so none of it can close the fence."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", body)), default=0))
    return f"{fence}\n{body}\n{fence}"


def _markdown_text(message: Message) -> list[str]:
    """A message's text for Markdown: each attachment as its name and a fenced block, then what was said."""
    if not attachments_in(message) or not isinstance(message.content, tuple):
        return [message.text]
    out = []
    for part in message.content:
        meta = attachment_of(part)
        if meta is None:
            continue
        if part.get("type") == "image_url":  # an image is a note here; the JSON export keeps it whole
            out += [f"**attached {meta['name']}** (an image, {human_size(size_of(meta))})", ""]
            continue
        out += [f"**attached {meta['name']}**", "", _fenced(str(part.get("text", "")).partition("\n")[2]), ""]
    return [*out, said(message)]


def write_export(store: Store, conversation_id: int, fmt: str, directory: Path | None = None) -> Path:
    """Export a conversation to a new private file in `directory` (default: the exports folder); its path.

    Raises `ExportError` (one line, naming the place) when the file cannot be written there.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (use md or json)")
    text = export_conversation(store, conversation_id, fmt)
    try:
        where = directory if directory is not None else export_dir()
    except StorageError as error:
        raise ExportError(f"cannot export: {error}") from None
    try:
        return create_private_file(where, f"foldchat-{conversation_id}", f".{fmt}", text.encode("utf-8"))
    except OSError as error:
        raise ExportError(f"cannot write the export in {where}: {error.strerror or error}") from None
