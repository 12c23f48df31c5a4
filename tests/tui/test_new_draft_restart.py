"""A draft typed in a new conversation not saved yet comes back on the usual restart: the app opens in a
new conversation again, with the draft (it opened the latest conversation, and the draft came back only
when a new conversation was opened by hand)."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send


async def test_a_draft_in_a_new_conversation_is_back_after_a_restart(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "first message")
        await send(pilot, "/new")
        await wait_for(pilot, lambda: chat(app).backend.conversation_id is None)
        chat(app).query_one(Composer).focus()
        await pilot.press(*"an idea for later")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        composer = chat(app).query_one(Composer)
        await wait_for(pilot, lambda: composer.text == "an idea for later")
        assert chat(app).backend.conversation_id is None  # the new conversation, not the latest one
        await send(pilot, "an idea for later")  # sent: the draft is gone, and the next start opens this one
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert chat(app).backend.conversation_id == 2 and chat(app).query_one(Composer).text == ""
