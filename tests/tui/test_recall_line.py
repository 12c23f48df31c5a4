"""Recall at every send in the app: under the prompt, a line says what was recalled for it ("recalled #12 ·
96 tokens"); Enter on it opens the passages, word for word; the gauge counts them; after a restart the
line is still there (it is stored with the prompt); /recall off stops it."""

from __future__ import annotations

from foldchat.engine import OpenOptions, Workspace
from foldchat.engine.messages import parse_messages
from foldchat.tui.app import AppOptions, make_app
from foldchat.tui.widgets.fold_marker import FoldMarker
from foldchat.tui.widgets.gauge import ContextGauge
from foldchat.tui.widgets.message import MessageView
from test_recall_at_send import chat as garden_chat, folded_line
from textual.widgets import Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import chat, send


def garden_app(fake, tmp_path, monkeypatch, early_reply: str | None = None):
    """The app on the garden chat (folded by `folded`); `early_reply`: the text of its second reply."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    settings = settings_for(fake, 8_000).model_copy(update={"summarizer": "rules"})
    database = tmp_path / "garden.db"
    with Workspace.open(OpenOptions(settings=settings, database=database)) as workspace:
        conversation = workspace.store.create_conversation(title="garden", model="fake")
        raw = garden_chat()
        if early_reply is not None:
            raw[3]["content"] = early_reply
        for message in parse_messages(raw):
            workspace.store.append(conversation, message)
    return lambda: make_app(AppOptions(settings=settings, database=database, conversation=conversation))


def prompt_view(screen, text: str) -> MessageView | None:
    return next((v for v in screen.query(MessageView) if v.data.role == "user" and v.data.text == text), None)


def recalled_line(view: MessageView | None) -> Collapsible | None:
    found = [] if view is None else list(view.query(".recalled"))
    return found[0] if found and isinstance(found[0], Collapsible) else None


async def folded(pilot):
    """The garden chat opened and folded by hand, as a user would; its chat screen."""
    screen = chat(pilot.app)
    await wait_for(pilot, lambda: screen.model_ready, timeout=90)
    await send(pilot, "/resummarize")
    await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
    return screen


async def test_the_prompt_shows_what_was_recalled_and_enter_opens_it(fake, tmp_path, monkeypatch):
    make = garden_app(fake, tmp_path, monkeypatch)
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await folded(pilot)
        line = folded_line(screen.backend)
        question = f"what did we sow in {line.split(':')[0].lower()}?"
        await send(pilot, question)
        collapsible = await wait_for(pilot, lambda: recalled_line(prompt_view(screen, question)))
        title = str(collapsible.title)
        assert title.startswith("recalled #") and title.endswith(" tokens")
        assert collapsible.collapsed
        collapsible.query_one(CollapsibleTitle).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not collapsible.collapsed)
        shown = str(collapsible.query_one(Collapsible.Contents).query_one(Static).render())
        assert line in shown and shown.startswith("#")
        gauge = screen.query_one(ContextGauge)
        await wait_for(pilot, lambda: gauge.state.recalled > 0)
        drawn, n = str(gauge.render()), gauge.state.recalled
        assert f"+{n}r/" in drawn or f"+{n:,} recalled" in drawn  # the short form at 120 columns, or the long
        assert any(m.get("content", "").startswith("<recalled_messages>") for m in fake.requests[-1]["messages"])

    again = make()  # a restart: the line comes from the store
    async with again.run_test(size=(120, 40)) as pilot:
        screen = chat(again)
        await wait_for(pilot, lambda: recalled_line(prompt_view(screen, question)), timeout=30)
        assert str(recalled_line(prompt_view(screen, question)).title) == title  # type: ignore[union-attr]


async def test_recall_off_sends_no_passages(fake, tmp_path, monkeypatch):
    app = garden_app(fake, tmp_path, monkeypatch)()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await folded(pilot)
        await send(pilot, "/recall off")
        assert not screen.backend.replies.at_send.on
        question = f"what did we sow in {folded_line(screen.backend).split(':')[0].lower()}?"
        await send(pilot, question)
        assert recalled_line(prompt_view(screen, question)) is None
        assert not any(m.get("content", "").startswith("<recalled_messages>") for m in fake.requests[-1]["messages"])


async def test_the_fold_inspector_opens_a_recalled_message_word_for_word(fake, tmp_path, monkeypatch):
    from foldchat.tui.screens.fold_inspector import FoldInspector
    from foldchat.tui.screens.message_text import MessageText

    app = garden_app(fake, tmp_path, monkeypatch)()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await folded(pilot)
        line = folded_line(screen.backend)
        await send(pilot, f"what did we sow in {line.split(':')[0].lower()}?")
        recalled = screen.backend.replies.at_send.latest()
        assert recalled is not None
        number = next(p.number for p in recalled.passages if line in p.text)
        await send(pilot, "/folds")
        await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector))
        await pilot.press("ctrl+o")
        await pilot.press(*f"#{number}", "enter")
        opened = await wait_for(pilot, lambda: isinstance(app.screen, MessageText) and app.screen)
        text = "\n".join(str(s.render()) for s in opened.query(Static))
        assert line in text and opened.number == number
        await pilot.press("escape")  # back to the inspector it came from
        await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector))


async def test_recalled_words_are_shown_as_they_were_written(fake, tmp_path, monkeypatch):
    """Markup and terminal escapes in a recalled message are text: never a style, a link or a title change."""
    hostile = "The zanzibar bed gets [/b] [@click=app.quit]x[/] and \x1b]2;owned\x07 compost."
    app = garden_app(fake, tmp_path, monkeypatch, early_reply=hostile)()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await folded(pilot)
        await send(pilot, "what goes in the zanzibar bed?")
        collapsible = await wait_for(pilot, lambda: recalled_line(prompt_view(screen, "what goes in the zanzibar bed?")))
        shown = str(collapsible.query_one(Collapsible.Contents).query_one(Static).render())
        assert "[/b] [@click=app.quit]x[/]" in shown  # literally
        assert "\x1b" not in shown and "\x07" not in shown  # escapes made visible, never sent to the terminal
        assert app.is_running
