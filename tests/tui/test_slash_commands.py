"""Every slash command through the composer, plus completion and the command palette."""

from __future__ import annotations

import json

from foldchat.engine import Message
from foldchat.tui.app import SlashCommandProvider
from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.screens.history import HistoryAction, HistoryScreen
from foldchat.tui.screens.info import InfoScreen
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.message import MessageView
from textual.widgets import OptionList

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, replies, send


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_completion_offers_commands_and_tab_completes(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await pilot.press("/", "r", "e", "s")
        suggestions = screen.query_one("#suggestions")
        assert suggestions.display and suggestions.option_count == 1
        await pilot.press("tab")
        assert screen.query_one(Composer).text == "/resummarize "


async def test_what_a_command_takes_is_shown_in_brackets_not_read_as_markup(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await pilot.press("/", "m", "o")
        suggestions = screen.query_one("#suggestions", OptionList)
        await pilot.pause()
        shown = "".join(suggestions.render_line(y).text for y in range(suggestions.size.height))
        assert "/model [name]" in shown, shown
        provider = SlashCommandProvider(screen)
        found = [hit async for hit in provider.discover()]
        assert any(str(hit.display).startswith("/resummarize [--preview] [focus]") for hit in found)
        searched = [hit async for hit in provider.search("sys")]
        assert any("/system [text]" in str(hit.match_display) for hit in searched), searched


async def test_unknown_command_is_a_helpful_notice(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/frobnicate now")
        assert any("Unknown command /frobnicate" in n for n in notes(app))


async def test_context_folds_resummarize_and_system(app_factory, fake):
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "/system You are terse.")
        await wait_for(pilot, lambda: any(v.data.role == "system" for v in screen.query(MessageView)))
        await send(pilot, "/folds")
        assert any("No folds yet" in n for n in notes(app))
        for n in range(3):
            await send(pilot, f"message {n} about INV-{n}: " + "the invoice lines and totals " * 120)
        await send(pilot, "/resummarize invoices")
        await wait_for(pilot, lambda: screen.backend.store.active_fold(screen.backend.conversation_id))
        await send(pilot, "/context")
        context = await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen)
        for part in ("system", "snapshot", "history", "tools", "input", "reserved"):
            assert part in context.markdown
        usage = screen.backend.usage()  # the same number the gauge calls "fold at"
        assert f"the conversation alone {usage.trigger - usage.reserved:,}" in context.markdown, context.markdown
        await pilot.press("escape")
        await send(pilot, "/folds")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        assert any("invoices" in i for _, items in inspector.view.sections for i in items)
        await pilot.press("escape")
        await send(pilot, "go on")
        sent = fake.requests[-1]["messages"]
        assert sent[0] == {"role": "system", "content": "You are terse."}
        assert "<state_snapshot" in sent[1]["content"]


async def two_conversations(pilot, app, first_text: str, second_text: str) -> int:
    """`first_text` sent, then /new and `second_text`: returns the first conversation's id."""
    screen = chat(app)
    await send(pilot, first_text)
    first = screen.backend.conversation_id
    await send(pilot, "/new")
    await wait_for(pilot, lambda: screen.backend.conversation_id != first)
    assert not list(screen.query(MessageView))
    await send(pilot, second_text)
    return first


async def opened_history(pilot, app) -> HistoryScreen:
    await send(pilot, "/history")
    return await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)


async def test_new_history_rename_resume_delete(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        first = await two_conversations(pilot, app, "first conversation", "second conversation")
        second = screen.backend.conversation_id
        history = await opened_history(pilot, app)
        assert {r.id for r in history.rows} == {first, second}
        history.dismiss(HistoryAction("rename", first, "Renamed one"))
        await wait_for(pilot, lambda: screen.backend.store.conversation(first).title == "Renamed one")
        await send(pilot, "/history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        history.dismiss(HistoryAction("resume", first))
        await wait_for(pilot, lambda: screen.backend.conversation_id == first)
        assert next(v.data.text for v in screen.query(MessageView)) == "first conversation"
        await send(pilot, "/history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        history.dismiss(HistoryAction("delete", second))
        await wait_for(pilot, lambda: len(screen.backend.store.conversations()) == 1)


async def test_down_in_the_history_search_box_moves_the_highlight_and_enter_resumes_that_one(app_factory):
    """↓ in the search box (where focus starts) did nothing: Down then Enter reopened the current one."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await two_conversations(pilot, app, "first conversation", "second conversation")
        history = await opened_history(pilot, app)
        options = history.query_one(OptionList)
        current = screen.backend.conversation_id
        for _ in range(3):  # the list's own cursor: from no highlight to the first row, then on (wrapping)
            await pilot.press("down")
            if options.highlighted is not None and history.rows[options.highlighted].id != current:
                break
        assert options.highlighted is not None and history.rows[options.highlighted].id != current
        older = history.rows[options.highlighted].id
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.backend.conversation_id == older)


async def test_export_retry_pin_model_and_quit(app_factory, fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path / "..")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    exports = tmp_path / "data" / "foldchat" / "exports"
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "export me")
        count = len(replies(screen))
        await send(pilot, "/retry")
        await wait_for(
            pilot, lambda: len(replies(screen)) == count + 1 and replies(screen)[-1].data.status == "complete"
        )
        transcript = screen.backend.context.transcript()
        assert transcript[1].superseded_by == transcript[2].id  # the old reply stays, replaced
        assert [m["role"] for m in fake.requests[-1]["messages"]] == ["user"]
        cid = screen.backend.conversation_id
        screen.backend.store.append(cid, Message.assistant(""), status="interrupted")  # an empty start

        await send(pilot, "/export json")
        path = exports / f"foldchat-{cid}.json"  # the data dir's exports folder, not the working directory
        await wait_for(pilot, path.exists)
        exported = json.loads(path.read_text())["messages"]
        assert exported[0]["message"]["content"] == "export me"
        assert [m["superseded_by"] for m in exported] == [None, transcript[2].id, None]  # the empty one skipped
        assert any(str(path) in n for n in notes(app))  # the path is shown
        await send(pilot, "/export md")
        markdown = await wait_for(
            pilot, lambda: (exports / f"foldchat-{cid}.md").exists() and exports / f"foldchat-{cid}.md"
        )
        assert "## [2] assistant [superseded by #3]" in markdown.read_text()  # its numbers in the conversation
        assert not list((tmp_path / "..").glob("foldchat-*"))

        await send(pilot, "/pin")
        await wait_for(pilot, lambda: screen.backend.store.pinned_ids(screen.backend.conversation_id))

        await send(pilot, "/model fake-small")
        await wait_for(pilot, lambda: screen.backend.target.name == "fake-small")
        await send(pilot, "/model no-such-model-xyz")
        assert any("unknown model" in n for n in notes(app))

        await send(pilot, "/quit")
        await wait_for(pilot, lambda: not app.is_running)


async def test_command_palette_runs_slash_commands(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"/help")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
