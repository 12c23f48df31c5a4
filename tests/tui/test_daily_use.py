"""Issue 11, daily use: full-text history search, edit and resend, copying code, live thinking, the
title on screen, the model picker, user text as typed, the gauge at 80 columns."""

from __future__ import annotations

from foldchat.tui.screens.history import HistoryScreen
from foldchat.tui.widgets.message import MessageView
from textual.widgets import Input, OptionList

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_history_search_finds_message_text_and_shows_the_line(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Plans\nthe ferry to Cacilhas leaves at nine")
        first = screen.backend.conversation_id
        await send(pilot, "/new")
        await wait_for(pilot, lambda: screen.backend.conversation_id != first)
        await send(pilot, "something else")
        await send(pilot, "/history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        history.query_one("#search", Input).focus()
        history.query_one("#search", Input).value = "cacilh"  # a word of a message, not of a title, unfinished
        options = history.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 1)
        prompt = str(options.get_option_at_index(0).prompt)
        assert prompt.startswith(f"{first:>5}") and "› the ferry to Cacilhas leaves at nine" in prompt
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: screen.backend.conversation_id == first)
        assert next(v.data.text for v in screen.query(MessageView)).startswith("Plans")
