"""Esc says what it stopped: a reply with words is kept, partial; one stopped before its first word has
nothing to keep, and Ctrl+R asks again (it said "the partial reply is kept" of an empty reply)."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, replies
from tui.test_daily_use import notes


async def test_escape_before_the_first_word_says_nothing_was_kept(app_factory, fake):
    fake.script = ["hang"]
    async with ready_chat(app_factory(request_timeout=60), (100, 30)) as (pilot, screen):
        screen.query_one(Composer).text = "a question the model is slow to answer"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.conversation.streaming and len(fake.requests) >= 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.conversation.reply_underway())
        assert any("before the reply began: Ctrl+R asks again" in n for n in notes(screen.app))
        assert not any("partial reply is kept" in n for n in notes(screen.app))
        fake.release()


async def test_escape_mid_reply_says_the_partial_reply_is_kept(app_factory, fake):
    fake.script = ["slow"]
    async with ready_chat(app_factory(), (100, 30)) as (pilot, screen):
        screen.query_one(Composer).text = "stream slowly"
        await pilot.press("enter")
        await wait_for(pilot, lambda: replies(screen) and "word3" in replies(screen)[-1].data.text)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.conversation.reply_underway())
        assert any("partial reply is kept" in n for n in notes(screen.app))
