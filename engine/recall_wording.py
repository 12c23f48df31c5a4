"""What a request says about words a fold left out, per target (docs/design.md §13).

A snapshot and a pruned file's stub are stored telling the model how to get words back with the `recall`
tool ("recall them by number", `recall("notes.md") returns it`). Only a model offered that tool can; the
embedded local model, a model litellm does not know to call tools, and every model with `[fold] recall =
false` are sent the same text without those words: what was left out, and nothing they cannot use. The
stored text stays as it is (a later fold reads its own words back).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .attachments import attachment_of, is_stubbed, recall_hint
from .fold.fit import LEFT_OUT
from .messages import FrozenDict, Message
from .snapshot import is_snapshot_message

LEFT_OUT_UNRECALLED = LEFT_OUT.removesuffix(" (recall them by number)")
"""How the snapshot's line of requests left out ends without the tool: "2 requests left out of this snapshot (#1, #3)"."""
STUB_UNRECALLED = "left out of this request"


def line_without_recall(line: str) -> str:
    """A line of a snapshot as a model without the `recall` tool reads it (the fold inspector shows it so)."""
    return line.replace(LEFT_OUT, LEFT_OUT_UNRECALLED)


def without_recall(messages: list[Message]) -> list[Message]:
    """`messages` as a model without the `recall` tool is sent them."""
    return [_reworded(message) for message in messages]


def _reworded(message: Message) -> Message:
    if is_snapshot_message(message) and isinstance(message.content, str) and LEFT_OUT in message.content:
        return message.evolve(content=message.content.replace(LEFT_OUT, LEFT_OUT_UNRECALLED))
    if isinstance(message.content, tuple) and any(is_stubbed(part) for part in message.content):
        return message.evolve(content=tuple(_stub_reworded(part) for part in message.content))
    return message


def _stub_reworded(part: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = attachment_of(part)
    if meta is None or not is_stubbed(part):
        return part
    return FrozenDict({**part, "text": str(part["text"]).replace(recall_hint(str(meta["name"])), STUB_UNRECALLED)})
