"""A fold that only stubs an attached file is stored like one that stubs tool outputs: it was computed,
reported as folded, and never stored (the layout kept only tool stubs), so a conversation that started
with a big attachment never folded again. A later fold keeps the stub."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from foldchat.engine.attachments import read_attachment, stubbed, user_message
from foldchat.engine.fold.layout import FoldLayout, new_fold
from foldchat.engine.messages import Message


@dataclass(frozen=True)
class Range:
    first_message_id: int
    last_message_id: int
    snapshot: dict[str, Any]


def conversation() -> list[Message]:
    notes = read_attachment("zones.txt", b"zone 7: the fox jumps twelve times\n" * 50, 1_000_000)
    first = user_message("please read this file", [notes]).evolve(key=1)
    return [first, Message.assistant("Read it.").evolve(key=2), Message.user("what about zone 7?").evolve(key=3)]


def test_a_pruned_only_fold_of_an_attachment_is_stored_and_rebuilds_to_the_stub():
    messages = conversation()
    pruned = [stubbed(messages[0], 1).evolve(key=1), *messages[1:]]
    record = new_fold(pruned, [], None, None)
    assert record is not None and (record.first_message_id, record.last_message_id) == (1, 1)
    layout = FoldLayout.of(Range(record.first_message_id, record.last_message_id, record.snapshot))
    rebuilt = layout.apply(messages[0])
    assert 'recall("zones.txt") returns it' in rebuilt.text and "fox jumps twelve" not in rebuilt.text
    assert "please read this file" in rebuilt.text  # the user's own words stay


def test_a_later_fold_keeps_the_attachment_stub():
    messages = conversation()
    first = new_fold([stubbed(messages[0], 1).evolve(key=1), *messages[1:]], [], None, None)
    assert first is not None
    earlier = Range(first.first_message_id, first.last_message_id, first.snapshot)
    rebuilt = [FoldLayout.of(earlier).apply(m) for m in messages]  # the context as the first fold sends it
    second = new_fold([rebuilt[0], rebuilt[2]], [rebuilt[1]], {"current_goal": "zones"}, earlier)
    assert second is not None
    assert 1 in FoldLayout.of(Range(second.first_message_id, second.last_message_id, second.snapshot)).replaced
