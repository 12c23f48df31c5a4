"""Daily use: no crash, no lost focus, instant feedback (Pilot, real app, loopback server)."""

from __future__ import annotations

import asyncio

from foldchat.engine import OpenOptions, Session
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.message import MessageView
from foldchat.tui.widgets.transcript import Transcript

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import chat, gauge, ready, replies, send


def seed_conversation(fake, tmp_path, count: int) -> int:
    """A stored conversation of `count` user/assistant exchanges, in the app's database."""
    options = OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")
    with Session.open(options) as session:
        for n in range(count):
            session.add_user_message(f"question {n}")
            session.store.append(session.conversation_id, _assistant(f"answer {n}"))
        return session.conversation_id


async def opened(pilot):
    """The conversation is open and the model resolved (the model itself may still be starting)."""
    await wait_for(pilot, lambda: chat(pilot.app).backend is not None, timeout=60)


def _assistant(text: str):
    from foldchat.engine.messages import Message

    return Message.assistant(text)


async def test_new_while_earlier_items_are_loading_does_not_crash(app_factory, fake, tmp_path):
    seed_conversation(fake, tmp_path, 30)  # 60 items: more than one window
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        screen = chat(app)
        transcript = screen.query_one(Transcript)
        assert transcript.first_mounted > 0
        # the lazy load and the reload of /new interleave, as when Home and /new come close together
        await asyncio.gather(transcript.load_earlier(), screen.run_slash("new"), transcript.load_earlier())
        await pilot.pause()
        assert app.is_running and app.crash is None
        assert transcript.items == [] and not screen.query(MessageView)


async def test_scroll_to_top_then_new_does_not_crash(app_factory, fake, tmp_path):
    seed_conversation(fake, tmp_path, 30)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        screen = chat(app)
        transcript = screen.query_one(Transcript)
        transcript.scroll_home(animate=False)  # schedules the lazy load
        await screen.run_slash("new")
        await pilot.pause()
        await pilot.press("home")
        await pilot.pause()
        assert app.is_running and app.crash is None


async def test_new_leaves_no_empty_conversation_behind(app_factory, fake, tmp_path):
    kept = seed_conversation(fake, tmp_path, 1)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        screen = chat(app)
        await screen.run_slash("new")
        await screen.run_slash("new")
        assert screen.backend.conversation_id is None
        assert [c.id for c in screen.backend.workspace.conversations()] == [kept]
    with Session.open(OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")) as again:
        assert again.conversation_id == kept  # the app reopens on the last real conversation


async def test_a_message_too_big_for_the_window_is_refused_up_front_and_stays_in_the_composer(app_factory, fake):
    """It was first offered a fold that could not help, then refused, then stored as unsent *and* put back
    in the composer, which had no way to clear 2,000 lines."""
    app = app_factory(window=1000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "hello")
        before = screen.backend.usage().tokens
        requests, stored = len(fake.requests), len(screen.backend.context.transcript())
        big = "Ticket OPS-9 log: " + "timeout on db-7\n" * 2000
        told: list[str] = []
        notify = app.notify
        app.notify = lambda message, *a, **k: (told.append(str(message)), notify(message, *a, **k))[1]  # type: ignore[method-assign]
        composer = screen.query_one(Composer)
        composer.text = big
        await pilot.press("enter")
        await wait_for(pilot, lambda: told, timeout=30)
        assert composer.text == big.strip("\n")  # as it was sent
        assert "Not sent: the message is " in told[-1] and "over fake's 1,000-token window" in told[-1]
        assert (
            len(screen.backend.context.transcript()) == stored and len(fake.requests) == requests
        )  # in one place only
        assert not [v for v in screen.query(MessageView) if v.data.status == "unsent"]
        assert screen.backend.usage().tokens == before  # the context is unchanged
        composer.focus()
        await pilot.press("ctrl+l")
        assert composer.text == ""
        await pilot.press("ctrl+z")
        assert composer.text == big.strip("\n")  # cleared by mistake? it comes back


async def test_pin_pins_the_selected_message_or_the_last_one_and_says_which(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Ana owns OPS-77")
        await send(pilot, "thanks")
        await send(pilot, "/pin")  # nothing selected: the last message, the reply
        last = replies(screen)[-1]
        await wait_for(pilot, lambda: last.pinned)
        assert screen.backend.context.pinned_ids() == [last.data.id]
        assert any("message 4, the reply" in n.message for n in app._notifications)
        first = next(v for v in screen.query(MessageView) if v.data.text == "Ana owns OPS-77")
        first.focus()  # selected in the transcript
        await pilot.pause()
        await send(pilot, "/pin")
        await wait_for(pilot, lambda: first.pinned)
        assert sorted(screen.backend.context.pinned_ids()) == sorted([first.data.id, last.data.id])
        assert any("message 1, your message “Ana owns OPS-77”" in n.message for n in app._notifications)


async def test_esc_returns_to_the_composer_and_typing_anywhere_lands_there(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "first")
        composer = screen.query_one(Composer)
        await pilot.press("tab")
        assert screen.focused is not composer
        replies(screen)[-1].focus()
        await pilot.press("escape")
        assert screen.focused is composer
        replies(screen)[-1].focus()
        await pilot.press("h", "i")
        assert screen.focused is composer and composer.text == "hi"  # no character dropped
        replies(screen)[-1].focus()
        await pilot.press(*"pizza")  # a selected message takes no bare letters: "pizza" stays "pizza"
        assert screen.focused is composer and composer.text == "hipizza"
        assert not replies(screen)[-1].pinned
        replies(screen)[-1].focus()
        await pilot.press("enter")  # its actions, on purpose
        await pilot.press("p")
        await wait_for(pilot, lambda: replies(screen)[-1].pinned)
        assert composer.text == "hipizza"


async def test_inspector_esc_backs_out_save_has_a_key_and_undo_asks_first(app_factory):
    from foldchat.tui.screens.confirm import ConfirmDialog
    from foldchat.tui.screens.fold_inspector import FoldInspector

    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(3):
            await send(pilot, f"Ticket OPS-77 note {n}: " + "the invoice lines and totals " * 120)
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: screen.backend.context.active_fold())

        async def inspect():
            await send(pilot, "/folds")
            return await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)

        inspector = await inspect()
        await pilot.press("ctrl+e")
        await pilot.press("tab")
        assert inspector.focused.id == "save"  # not Undo: Enter here saves, never undoes the fold
        await pilot.press("escape")  # out of the editor, the inspector stays
        assert app.screen is inspector and not inspector.has_class("-editing")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: screen.focused is screen.query_one(Composer))

        inspector = await inspect()
        await pilot.press("ctrl+e")
        editor = inspector.query_one("#editor")
        editor.text = editor.text.replace("OPS-77", "OPS-78")
        await pilot.press("ctrl+s")  # Save edit has a key
        await wait_for(pilot, lambda: app.screen is screen)
        assert "OPS-78" in screen.backend.chain.snapshot_text(screen.backend.context.active_fold())
        await wait_for(pilot, lambda: screen.focused is not None)

        inspector = await inspect()
        await pilot.press("ctrl+u")
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen)
        assert dialog.focused.id == "cancel"
        await pilot.press("enter")  # the default answer keeps the fold
        await wait_for(pilot, lambda: app.screen is inspector)
        assert screen.backend.context.active_fold() is not None
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.backend.context.active_fold() is None)


async def test_deleting_a_conversation_asks_first(app_factory, fake, tmp_path):
    from foldchat.tui.screens.confirm import ConfirmDialog
    from foldchat.tui.screens.history import HistoryScreen

    other = seed_conversation(fake, tmp_path, 1)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        screen = chat(app)
        await screen.run_slash("new")
        await screen.run_slash("history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        options = await wait_for(pilot, lambda: history.query("#conversations"))
        options.first().focus()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is history)
        assert [c.id for c in screen.backend.workspace.conversations()] == [other]
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.backend.workspace.conversations() == [])


async def test_a_slow_model_shows_the_message_and_a_waiting_note_at_once(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        empty = gauge(screen).tokens
        fake.script = ["hang", "ok"]
        composer = screen.query_one(Composer)
        composer.text = "a long pasted prompt " * 50
        await pilot.press("enter")
        reply = await wait_for(pilot, lambda: next(iter(replies(screen)), None))
        await wait_for(pilot, lambda: "waiting for the model… " in reply.header_text())
        await wait_for(pilot, lambda: "waiting for the model… 1 s" in screen.status)  # joins after a second
        users = [v for v in screen.query(MessageView) if v.data.role == "user"]
        assert users and users[-1].data.text.startswith("a long pasted prompt")  # echoed, not gone
        assert users[-1].data.id is not None
        await wait_for(pilot, lambda: gauge(screen).tokens > empty)  # the gauge holds the message
        assert not reply.header_text().rstrip().endswith("·")
        fake.release()
        await wait_for(pilot, lambda: reply.data.status != "streaming")
        assert "waiting" not in reply.header_text() and "waiting" not in screen.status


async def test_a_reply_that_starts_within_a_second_leaves_the_status_line_as_it_was(app_factory, fake):
    """The waiting note is in the reply's header at once; the status line only after a second, so a quick
    reply's turn does not repaint it (a frame spanning the status line and the gauge is the whole screen)."""
    from foldchat.tui.widgets.reply_face import WaitingNote

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "hello")
        before, view = screen.status, replies(screen)[-1]
        note = WaitingNote(screen, view, "fake")
        assert "waiting for the model…" in view.header_text() and screen.status == before
        note.stop()  # the first event arrived
        await pilot.pause(1.3)
        assert screen.status == before and "waiting" not in view.header_text()


async def test_a_conversation_opened_with_an_unanswered_prompt_is_sent_only_on_a_keypress(app_factory, fake, tmp_path):
    """An imported chat (or one left by a crash) that ends in a user message was sent to the provider on open."""
    options = OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")
    with Session.open(options) as session:
        session.add_user_message("question 0")
        session.store.append(session.conversation_id, _assistant("answer 0"))
        session.add_user_message("an imported question nobody sent")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        last = await wait_for(pilot, lambda: "unanswered" in screen.query_one(Transcript).message_views()[-1].data.note
                              and screen.query_one(Transcript).message_views()[-1])  # fmt: skip
        await pilot.pause(0.5)
        assert fake.requests == [] and last.data.role == "user"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete" and len(replies(screen)) == 2)
        assert fake.requests[-1]["messages"][-1]["content"] == "an imported question nobody sent"
