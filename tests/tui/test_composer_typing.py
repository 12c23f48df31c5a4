"""Typing into a huge composer text: the gauge counts it off the UI thread and catches up."""

from __future__ import annotations

import threading

from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import chat, gauge, ready

PASTE = "2026-03-02 02:14:07 ERROR db-7 timeout after 30s (pool=billing)\n" * 3200  # ~200 KB


async def test_typing_after_a_big_paste_is_counted_off_the_ui_thread(app_factory, monkeypatch):
    app = app_factory(window=128_000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        session = screen.backend
        counted_in: list[threading.Thread] = []
        count = session.typed_tokens

        def typed_tokens(text: str) -> int:
            counted_in.append(threading.current_thread())
            return count(text)

        monkeypatch.setattr(session, "typed_tokens", typed_tokens)
        composer = screen.query_one(Composer)
        composer.focus()
        composer.insert(PASTE)
        await pilot.press(*"and then some")
        final = count(composer.text)
        assert final > 10_000
        await wait_for(pilot, lambda: gauge(screen).typing == final)
        assert counted_in and threading.main_thread() not in counted_in
        assert len(session.counter()._cache) < 100  # composer states are not kept

        composer.text = "/resummarize"
        await wait_for(pilot, lambda: gauge(screen).typing == 0)  # a command costs nothing


async def test_an_emptied_composer_or_a_command_clears_the_count_without_starting_one(app_factory):
    """Every send empties the composer: counting that emptiness started a worker a turn."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        counted: list[str] = []
        composer = screen.query_one(Composer)
        count_typed = composer.count_typed
        composer.count_typed = lambda text: counted.append(text) or count_typed(text)
        composer.focus()
        await pilot.press(*"hi")
        await wait_for(pilot, lambda: gauge(screen).typing > 0)
        composer.text = "/mod"
        await wait_for(pilot, lambda: gauge(screen).typing == 0)
        composer.text = "a question"
        await wait_for(pilot, lambda: gauge(screen).typing > 0)
        composer.clear()
        await wait_for(pilot, lambda: gauge(screen).typing == 0)
        assert counted == ["h", "hi", "a question"]  # the command and the empty composer started no count
