"""Typing into a huge composer text: the gauge counts it off the UI thread and catches up."""

from __future__ import annotations

import threading

from foldchat.tui.widgets.composer import Composer
from textual import events

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
        composer.count_typed = lambda: counted.append(composer.text) or count_typed()
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


def post_keys(app, text: str) -> None:
    """`text` as a terminal without bracketed paste sends it: a key event per character, all at once."""
    from textual.keys import _character_to_key

    for character in text:
        if character == "\n":  # the composer's newline key (Enter would send)
            event = events.Key("ctrl+j", None)
        else:
            event = events.Key(character if character.isalnum() else _character_to_key(character), character)
        event.set_sender(app)
        app.post_message(event)


async def test_keys_arriving_at_once_are_typed_in_few_edits_and_counted_once(app_factory):
    """A paste without bracketed paste is a key per character, all at once. Each key started a count that
    cancelled every count before it (N keys: N²/2 cancels) and was an edit of its own, re-wrapping the
    whole line: 8,000 characters took 94 s. The burst is one edit a line, and one count, now, in the
    order typed (a newline or a paste among the characters stays where it was)."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        composer = screen.query_one(Composer)
        composer.focus()
        await pilot.pause()
        started: list[int] = []
        edits: list[int] = []
        count_typed, edit = composer.count_typed, composer.edit
        composer.count_typed = lambda *text: started.append(1) or count_typed(*text)
        composer.edit = lambda change: edits.append(1) or edit(change)
        line = "the nightly export timed out again,\nsee the pool settings. "
        post_keys(app, line * 5)
        app.post_message(events.Paste("[a paste among the keys] "))  # as the terminal's driver sends one
        post_keys(app, line * 5)
        text = line * 5 + "[a paste among the keys] " + line * 5
        await wait_for(pilot, lambda: composer.text == text)
        final = screen.backend.typed_tokens(text)
        await wait_for(pilot, lambda: gauge(screen).typing == final)
        assert len(edits) <= len(text) // 10
        assert len(started) <= 2
