"""The welcome panel of a new conversation (Pilot, real app, loopback server): it names the model and the
keys that matter, goes at the first thing typed, and never shows on a conversation that has messages."""

from __future__ import annotations

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.target import ModelTarget
from foldchat.tui.screens.chat import ChatScreen
from foldchat.tui.widgets import transcript as transcript_module
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.transcript import Transcript
from foldchat.tui.widgets.welcome import KEYS, Welcome, welcome_text

from test_readme import app_keys, keys_in, table_keys
from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send
from tui.test_reload_focus_and_sends import seed_conversation


def shown(screen: ChatScreen) -> str | None:
    """The welcome panel's text, or None when it is not there."""
    panels = list(screen.query(Welcome))
    return str(panels[0].render()) if panels else None


async def test_a_new_conversation_opens_on_the_model_and_the_keys_that_matter(app_factory):
    app = app_factory()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        text = await wait_for(pilot, lambda: (t := shown(screen)) and "Model: fake" in t and t)
        for words in ("Enter", "send", "F3, then Enter", "fold inspector", "/folds", "Ctrl+T or F2", "history"):
            assert words in text, words
        assert "The gauge at the bottom: tokens in context / the window" in text and "cost" in text
        assert isinstance(screen.focused, Composer)  # the panel takes no focus: typing goes on in the composer
        assert screen.query_one(Transcript).children[1] is screen.query_one(Welcome)  # in the transcript's place


async def test_the_first_letter_typed_puts_it_away_for_good_and_goes_in_the_composer(app_factory):
    app = app_factory()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await wait_for(pilot, lambda: shown(screen))
        await pilot.press("h")
        await wait_for(pilot, lambda: shown(screen) is None)
        composer = screen.query_one(Composer)
        assert composer.text == "h"
        await pilot.press("ctrl+l")  # emptied again: still the same conversation
        await screen.refresh_transcript()
        await pilot.pause(0.1)
        assert composer.text == "" and shown(screen) is None


async def test_a_paste_puts_it_away_too(app_factory):
    app = app_factory()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await wait_for(pilot, lambda: shown(screen))
        await screen.query_one(Composer).take_paste("pasted words")
        await wait_for(pilot, lambda: shown(screen) is None)
        assert screen.query_one(Composer).text == "pasted words"


async def test_a_conversation_with_messages_never_shows_it(app_factory, fake, tmp_path, monkeypatch):
    made: list[object] = []

    def recorded(*args: object) -> Welcome:
        made.append(args)
        return Welcome(*args)

    monkeypatch.setattr(transcript_module, "Welcome", recorded)
    seed_conversation(fake, tmp_path, 2)
    app = app_factory()  # opens the latest conversation
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        await pilot.pause(0.2)
        assert made == [] and shown(chat(app)) is None


async def test_a_switch_to_an_empty_conversation_shows_it_again(app_factory):
    app = app_factory()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "hello there")
        assert shown(screen) is None
        await send(pilot, "/new")
        await wait_for(pilot, lambda: (t := shown(screen)) and "Model: fake" in t)


def test_the_embedded_model_is_described_plainly_and_a_provider_offered():
    local = ModelTarget(name="local", litellm_model="openai/foldchat-local", window=8192, backend=EMBEDDED)
    text = welcome_text(local, LocalModelSettings()).plain
    assert "Model: local — SmolLM2-135M-Instruct" in text
    assert "135M parameters: fluent, often wrong on facts, and it may drift into another language" in text
    assert "OPENAI_API_KEY" in text and "ANTHROPIC_API_KEY" in text and "/model" in text
    gemma = welcome_text(local, LocalModelSettings(model="gemma")).plain
    assert "Gemma 3 270M" in gemma and "135M" not in gemma
    hosted = welcome_text(ModelTarget(name="[b]mine[/b]", litellm_model="openai/x", window=8000), None).plain
    assert "Model: [b]mine[/b]" in hosted and "OPENAI_API_KEY" not in hosted  # a configured name, literally
    assert "Model: starting…" in welcome_text(None, None).plain  # the session opens in a worker


def test_the_keys_it_names_are_the_apps_and_the_readmes():
    named = keys_in(" ".join(key for key, _ in KEYS))
    assert named == {"enter", "f3", "ctrl+t", "f2"}
    assert named <= app_keys() and named <= table_keys()
    by_action = {binding.action: binding.key for binding in ChatScreen.BINDINGS}
    assert by_action["history"] == "ctrl+t,f2" and by_action["next_fold_marker"] == "f3"
