"""One send at a time: Enter while a reply is on its way never makes a second user turn in a row."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from foldchat.tui.screens.chat import ChatScreen
from foldchat.tui.widgets.composer import Composer
from textual.pilot import Pilot

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready
from tui.test_daily_use import notes


@asynccontextmanager
async def first_reply_coming(app_factory, fake) -> AsyncIterator[tuple[Pilot, ChatScreen, Composer]]:
    """The app, with "first question" sent and its reply held back after two words (let go on the way out)."""
    fake.script = ["held"]
    fake.hold_after = 2
    fake.answer_gate.clear()
    app = app_factory(request_timeout=60)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            screen = chat(app)
            composer = screen.query_one(Composer)
            composer.text = "first question"
            composer.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.conversation.reply_underway() and len(fake.requests) >= 1)
            yield pilot, screen, composer
    finally:
        fake.answer_gate.set()


def prompts(screen: ChatScreen) -> list[str]:
    return [s.message.text for s in screen.backend.context.transcript() if s.message.role == "user"]


async def test_enter_while_a_reply_is_coming_keeps_the_message_in_the_composer(app_factory, fake):
    async with first_reply_coming(app_factory, fake) as (pilot, screen, composer):
        composer.text = "second question"
        await pilot.press("enter")
        await pilot.pause()
        assert prompts(screen) == ["first question"]
        assert composer.text == "second question"
        assert any("still coming" in n and "press Enter again" in n for n in notes(pilot.app))  # it never goes alone
        fake.answer_gate.set()
        await wait_for(pilot, lambda: not screen.conversation.reply_underway())
        await pilot.press("enter")  # now it goes, once
        await wait_for(pilot, lambda: not screen.conversation.reply_underway() and len(fake.requests) == 2)
        roles = [s.message.role for s in screen.backend.context.transcript()]
        assert roles == ["user", "assistant", "user", "assistant"]


async def test_lines_typed_as_keys_during_a_reply_all_stay_in_the_composer(app_factory, fake):
    """A paste without bracketed paste comes as keys, each line sent by its Enter: during a reply each one
    is refused, and the next lines were typed before the refusal put it back. Only the last line was left."""
    async with first_reply_coming(app_factory, fake) as (pilot, screen, composer):
        await pilot.press(*"line two", "enter", *"line three", "enter", *"line four")  # no pause between
        await wait_for(pilot, lambda: composer.text.endswith("line four") and not composer.typed_ahead)
        assert composer.text == "line two\nline three\nline four"
        assert prompts(screen) == ["first question"]
