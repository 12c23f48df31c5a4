"""Opening another conversation (/new, a /history resume) while a reply streams stops that reply first, as
Esc does: it was meant to, but cancelled the screen's workers while the reply's worker is the
transcript's, so the reply went on streaming (and costing) into a conversation no longer shown."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, replies


async def test_a_new_conversation_stops_the_reply_that_streams_and_keeps_its_partial(app_factory, fake):
    fake.script = ["slow"]
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        screen.query_one(Composer).text = "stream slowly"
        await pilot.press("enter")
        await wait_for(pilot, lambda: replies(screen) and "word3" in replies(screen)[-1].data.text)
        first = screen.backend.conversation_id
        assert first is not None
        screen.query_one(Composer).text = "/new"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.backend.conversation_id != first and not screen.conversation.streaming)
        workers = [w for w in app.workers if w.group == "reply" and not w.is_finished]
        assert workers == []  # nothing streams on in the background
        stored = screen.backend.workspace.store.messages(first)
        assert stored[-1].status == "interrupted" and stored[-1].message.text.startswith("word0")
