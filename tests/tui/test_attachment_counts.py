"""Attachments count in the fold policy exactly like text: a conversation whose first message attaches a
big file folds when its context reaches the trigger, as it would had the file been pasted. (A 6.4k-token
file in a 9k window never folded over 15 later questions; the last request held 8,669 tokens and the
reply was left 331.)"""

from __future__ import annotations

from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import wait_for
from tui.test_attach_in_app import attach, lines
from tui.test_chat_flows import ready_chat, send


def zone_notes() -> str:
    return "\n".join(f"line {i}: the fox number {i} jumps over the lazy dog {i * 7} times in zone {i % 13}"
                     for i in range(270))  # fmt: skip


async def test_a_conversation_that_starts_with_a_big_attachment_folds_at_the_trigger(app_factory, fake, tmp_path):
    notes = tmp_path / "zones.txt"
    notes.write_text(zone_notes())
    app = app_factory(window=9000)
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        session = screen.session
        assert session.counter().count_text(notes.read_text()) > 6000
        await attach(pilot, screen, str(notes), 1)
        await send(pilot, "please read this file")
        assert not lines(screen)
        trigger = session.settings.fold.trigger_at(9000)
        reserve = session.registry.reserved_output(session.target)
        for n in range(24):
            await send(pilot, f"question {n}: " + "what about the zones and the fox jumps " * 17)
            asked = fake.requests[-1].get("max_tokens")
            assert asked is None or asked >= reserve, (n, asked)  # the reply keeps its room
            if screen.query(FoldMarker):
                break
        await wait_for(pilot, lambda: screen.query(FoldMarker))  # folded before the window filled
        assert session.usage().tokens <= trigger
