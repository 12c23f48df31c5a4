"""The main flows through the real app with Pilot: send, stream, fold, inspect, undo, edit, pin, switch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from foldchat.tui.screens.chat import ChatScreen
from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.screens.info import InfoScreen
from foldchat.tui.screens.model_picker import ModelPicker
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.fold_marker import FoldMarker
from foldchat.tui.widgets.gauge import ContextGauge
from foldchat.tui.widgets.message import MessageView
from textual.pilot import Pilot

from tui.conftest import wait_for

LONG = "Ticket OPS-77 is due 2026-12-01 and Ana Ruiz owns it. " + "details " * 700


def chat(app) -> ChatScreen:
    return app.get_screen("chat")


async def ready(pilot):
    # generous: the first app of a session imports litellm in a worker, slow on a busy 2-core machine
    await wait_for(pilot, lambda: chat(pilot.app).model_ready, timeout=90)


@asynccontextmanager
async def ready_chat(app, size: tuple[int, int]) -> AsyncIterator[tuple[Pilot, ChatScreen]]:
    """`app` running at `size` with its model ready: the pilot and the chat screen."""
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        yield pilot, chat(app)


async def send(pilot, text: str) -> None:
    screen = chat(pilot.app)
    composer = screen.query_one(Composer)
    composer.text = text
    composer.focus()
    count = len(replies(screen))
    await pilot.press("enter")
    if not text.startswith("/"):
        await wait_for(pilot, lambda: len(replies(screen)) > count and replies(screen)[-1].data.status != "streaming")


def replies(screen) -> list[MessageView]:
    return [v for v in screen.query(MessageView) if v.data.role == "assistant"]


def gauge(screen):
    return screen.query_one(ContextGauge).state


async def test_send_streams_a_reply_and_updates_the_gauge(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        empty = gauge(screen).tokens
        composer = screen.query_one(Composer)
        composer.text = "hello " * 20
        await pilot.pause(0.1)
        assert gauge(screen).typing > 0  # counted as you type
        composer.text = ""
        await send(pilot, "hello there")
        assert replies(screen)[-1].data.text.strip() == fake.reply
        assert replies(screen)[-1].data.status == "complete"
        assert gauge(screen).tokens > empty
        assert fake.requests[-1]["messages"][-1] == {"role": "user", "content": "hello there"}


async def test_auto_fold_marker_gauge_drop_inspector_undo_and_edit(app_factory, fake):
    app = app_factory(window=4000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        peak = 0
        for n in range(8):
            await send(pilot, f"{n} {LONG}")
            peak = max(peak, gauge(screen).tokens)
            if screen.query(FoldMarker):
                break
        markers = await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        assert "Folded" in str(markers[0].render()) and "rules" in str(markers[0].render())
        assert gauge(screen).tokens < peak  # the gauge drops when the fold lands
        assert any(v.has_class("-folded") for v in screen.query(MessageView))  # folded ones stay visible
        assert "<state_snapshot" in fake.requests[-1]["messages"][0]["content"]

        markers[0].focus()
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        assert inspector.view.tokens_after < inspector.view.tokens_before
        assert any("OPS-77" in item for _, items in inspector.view.sections for item in items)

        await pilot.press("ctrl+e")  # edit the snapshot
        editor = inspector.query_one("#editor")
        editor.text = editor.text.replace("OPS-77", "OPS-78")
        await pilot.click("#save")
        await wait_for(pilot, lambda: app.screen is screen)
        await send(pilot, "what is due?")
        assert "OPS-78" in fake.requests[-1]["messages"][0]["content"]  # the corrected snapshot is sent

        folded_tokens = gauge(screen).tokens
        await send(pilot, "/unfold")
        await wait_for(pilot, lambda: app.screen is not screen)  # undoing a fold asks first
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.query(FoldMarker))
        assert screen.backend.store.active_fold(screen.backend.conversation_id) is None
        assert gauge(screen).tokens > folded_tokens  # the context holds the original messages again
        assert not any(v.has_class("-folded") for v in screen.query(MessageView))


async def test_pin_survives_a_fold(app_factory, fake):
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Remember: the launch code is ZEBRA-42.")
        first_user = next(v for v in screen.query(MessageView) if v.data.role == "user")
        first_user.focus()
        await pilot.press("enter", "p")
        await wait_for(pilot, lambda: first_user.pinned)
        for n in range(3):
            await send(pilot, f"question {n}: " + "tell me more about the weather and the food " * 120)
        await send(pilot, "/resummarize")
        marker = await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        assert "pinned kept 1/1" in str(marker[0].render())
        await send(pilot, "next")
        assert "ZEBRA-42" in fake.requests[-1]["messages"][0]["content"]


async def test_model_switch_rescales_the_gauge(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        assert gauge(screen).window == 16000
        await send(pilot, "/model")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen)
        assert any(c.name == "fake-small" and c.window == 4000 for c in picker.choices)
        app.screen.dismiss("fake-small")
        await wait_for(pilot, lambda: gauge(screen).window == 4000)
        await ready(pilot)
        await send(pilot, "hi from the small model")
        assert gauge(screen).model == "fake-small"


async def test_escape_stops_the_reply_and_keeps_the_partial(app_factory, fake):
    fake.script = ["slow"]
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        screen.query_one(Composer).text = "stream slowly"
        await pilot.press("enter")
        view = await wait_for(
            pilot, lambda: replies(screen) and "word3" in replies(screen)[-1].data.text and replies(screen)[-1]
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.data.status == "interrupted")
        stored = screen.backend.context.transcript()
        assert stored[-1].status == "interrupted" and stored[-1].message.text.startswith("word0")


async def test_provider_failure_is_a_notification_and_the_message_stays(app_factory, fake):
    fake.script = ["401"]
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "will fail")
        assert replies(screen)[-1].data.status == "error"
        messages = [n.message for n in app._notifications]
        assert any("authentication failed" in m and "/retry" in m for m in messages)
        assert screen.backend.context.transcript()[0].message.text == "will fail"
        fake.script = ["ok"]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete")


async def test_a_message_typed_before_the_model_is_ready_is_sent_when_it_is(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = chat(app)
        screen.query_one(Composer).text = "early bird"
        await pilot.press("enter")  # the backend is still opening
        await wait_for(pilot, lambda: replies(screen) and replies(screen)[-1].data.status == "complete")
        assert fake.requests[0]["messages"][-1]["content"] == "early bird"


async def test_conversation_is_still_there_after_a_restart(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "remember me")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        texts = [v.data.text for v in chat(app).query(MessageView)]
        assert "remember me" in texts


async def test_the_theme_and_an_unsent_draft_survive_a_restart(app_factory, fake, tmp_path):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "first message")
        app.theme = "textual-light"  # what the command palette's theme picker does
        chat(app).query_one(Composer).focus()
        await pilot.press(*"half a thought")
    assert (tmp_path / "ui-state.json").stat().st_mode & 0o777 == 0o600
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        composer = chat(app).query_one(Composer)
        await wait_for(pilot, lambda: composer.text == "half a thought")
        assert app.theme == "textual-light"
        await wait_for(pilot, lambda: gauge(chat(app)).typing > 0)  # the restored draft is counted too
        await send(pilot, "/new")  # the draft stays with its conversation
        await wait_for(pilot, lambda: chat(app).backend.conversation_id is None and composer.text == "")


async def test_help_lists_every_command(app_factory):
    from foldchat.tui.slash import COMMANDS

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        help_screen = await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen)
        assert all(f"/{c.name}" in help_screen.markdown for c in COMMANDS)


async def test_a_reply_cut_by_the_output_cap_is_marked_and_continue_asks_for_the_rest(app_factory, fake):
    fake.script = ["cut", "ok"]
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        await send(pilot, "tell me everything")
        cut = replies(screen)[-1]
        await wait_for(pilot, lambda: "[cut at" in cut.data.note)
        assert "/continue" in cut.data.note
        await send(pilot, "/continue")
        await wait_for(pilot, lambda: len(replies(screen)) == 2 and replies(screen)[-1].data.status == "complete")
        assert fake.requests[-1]["messages"][-1]["content"].startswith("Please continue")
        assert "[cut at" not in replies(screen)[-1].data.note
        asked = len(fake.requests)
        await send(pilot, "/continue")  # the last reply is whole: nothing to continue, nothing sent
        await pilot.pause()
        assert len(fake.requests) == asked and len(replies(screen)) == 2
        assert any("nothing to continue" in str(n.message) for n in app._notifications)


async def test_conversations_open_with_keys_terminals_deliver(app_factory, fake):
    """Ctrl+H arrives as Backspace in tmux and xterm: the conversations are on Ctrl+T and F2."""
    from foldchat.tui.screens.history import HistoryScreen

    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        for key in ("ctrl+t", "f2"):
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)


async def test_ctrl_r_marks_the_replaced_reply_at_the_keypress(app_factory, fake):
    """It was marked only after the fold check ran in the reply's worker: with a fold first, seconds later."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "a question")
        old = replies(screen)[-1]
        screen.action_retry()  # what Ctrl+R runs; nothing else has run yet
        assert old.has_class("-superseded") and old.data.superseded
        await wait_for(pilot, lambda: len(replies(screen)) == 2 and replies(screen)[-1].data.status == "complete")
        assert "(replaced)" in old.header_text() and "(replaced)" in str(old.border_title)  # said, not only dimmed
