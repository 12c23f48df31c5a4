"""Text we did not write is shown literally in the app: never parsed as markup, never obeyed.

Before, an imported tool call whose arguments held `[/quote]` crashed the app at every start, a title
with `[/INST]` crashed /history, `[@click=...]` titles became live links, `[interrupted]` vanished from
headers and OpenAI's `'^[a-zA-Z0-9_-]+$'` showed as `'^+$'`. These tests seed such text in a real
database and drive the real app."""

from __future__ import annotations

import json

from foldchat.engine import Message, parse_messages
from foldchat.engine.store import Store
from foldchat.tui.screens.history import HistoryScreen
from foldchat.tui.screens.model_picker import ModelPicker
from foldchat.tui.widgets.message import MessageView
from hypothesis import HealthCheck, given, settings, strategies as st
from textual.widgets import OptionList

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready

PATTERN_ERROR = "Invalid 'messages[1].tool_calls[0].id': string does not match pattern '^[a-zA-Z0-9_-]+$'"
HOSTILE_TITLE = "[@click=app.screenshot('/tmp/pwned')]click me[/] [/INST] [b]bold"


def seed(path, title: str, text: str) -> int:
    store = Store(path)
    cid = store.create_conversation(title=title, model="fake")
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "search[/b]", "arguments": json.dumps({"q": text})},
    }
    messages = parse_messages(
        [
            {"role": "user", "content": text},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "name": "search[/b]", "content": text},
        ]
    )
    for message in messages:
        store.append(cid, message)
    store.append(cid, Message.assistant(text), status="interrupted", model="fake", error=PATTERN_ERROR)
    store.close()
    return cid


def header(view: MessageView) -> str:
    """The header as drawn (the `border_title` getter gives it back as escaped markup)."""
    return view._border_title.plain if view._border_title is not None else ""


async def check_screen_shows(pilot, app, text: str, title: str) -> None:
    await ready(pilot)
    screen = chat(app)
    views = list(screen.query(MessageView))
    assert [v.data.role for v in views][:4] == ["user", "assistant", "tool", "assistant"]
    drawn = header(views[3])
    assert "[interrupted" in drawn and "'^[a-zA-Z0-9_-]+$'" in drawn, drawn
    assert views[0].data.text == text
    call_title = str(views[1].query_one("Collapsible").title)
    assert call_title.startswith("→ search[/b](") and "[/quote]" in call_title, call_title
    await screen.run_slash("history", "")
    history = await wait_for(
        pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.query(OptionList) and app.screen
    )
    prompts = [str(option.prompt) for option in history.query_one(OptionList).options]
    assert any(title in prompt for prompt in prompts), prompts
    await pilot.press("escape")
    await screen.run_slash("model", "")
    await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
    await pilot.press("escape")


async def test_hostile_titles_tool_calls_and_errors_are_shown_literally(app_factory, tmp_path, fake):
    text = "see [/quote] and [red]this[/red] and [@click=app.quit]x[/]"
    cid = seed(tmp_path / "tui.db", HOSTILE_TITLE, text)
    app = app_factory(conversation=cid)
    async with app.run_test(size=(140, 45)) as pilot:
        await check_screen_shows(pilot, app, text, HOSTILE_TITLE)
        assert chat(app).is_mounted  # still running: nothing crashed, no link was followed


async def test_provider_errors_are_shown_literally_in_toasts(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.notify(PATTERN_ERROR, title="Reply [b]failed")
        await pilot.pause(0.1)
        toasts = list(app._notifications)
        assert toasts[-1].message == PATTERN_ERROR and toasts[-1].markup is False


BRACKETY = st.text(alphabet=st.sampled_from(list("[]/@=()'ab \x1b\x07\\:#.")) | st.characters(), max_size=60)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=BRACKETY, title=BRACKETY)
async def test_any_text_renders_without_error_and_intact(app_factory, tmp_path_factory, fake, text, title):
    text = text.strip() or "x"
    directory = tmp_path_factory.mktemp("db")
    cid = seed(directory / "tui.db", title, text)
    from foldchat.engine import visible
    from foldchat.tui.app import AppOptions, make_app

    from tui.conftest import settings_for

    app = make_app(AppOptions(settings=settings_for(fake), database=directory / "tui.db", conversation=cid))
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(pilot)
        views = list(chat(app).query(MessageView))
        assert views[0].data.text == visible(text)
        assert str(views[1].query_one("Collapsible").title).startswith("→ search[/b](")
        assert views[2].data.text == visible(text)  # the tool result, shown as it came
        await chat(app).run_slash("history", "")
        history = await wait_for(
            pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.query(OptionList) and app.screen
        )
        prompts = [str(option.prompt) for option in history.query_one(OptionList).options]
        assert any(visible(title) in prompt for prompt in prompts) or not title


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=BRACKETY)
async def test_every_toast_path_is_literal_whoever_raises_it(app_factory, fake, text):
    """`Screen.notify` and `Widget.notify` pass markup=True by default: `/fold [/]` crashed the app."""
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = chat(app)
        screen.notify(text or "x", title=text)
        screen.query_one("Composer").notify(f"{text} [/]")
        for command in ("/fold [/]", "/model gpt-4o[/]", f"/fold {text}"):
            await screen.run_slash(*command[1:].partition(" ")[::2])
        await pilot.pause(0.05)
        assert all(toast.markup is False for toast in app._notifications)
        assert screen.is_mounted and app.is_running


async def test_ctrl_c_says_how_to_quit_in_plain_words(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.action_help_quit()
        await pilot.pause(0.05)
        assert list(app._notifications)[-1].message == "Press Ctrl+Q to quit Foldchat"
