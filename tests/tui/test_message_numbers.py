"""Every message's header shows its number, the one snapshots, stubs, the inspector and `recall` cite ("#12"),
drawn (muted) at 80 columns, and a /history search opens the conversation at the message that matched,
selected and in view, not at its end."""

from __future__ import annotations

import re

import pytest
from foldchat.engine import SNAPSHOT_SECTIONS, OpenOptions, Session
from foldchat.engine.messages import Message
from foldchat.engine.references import split_reference
from foldchat.tui.screens.history import HistoryScreen
from foldchat.tui.widgets.message import MessageData, MessageView
from foldchat.tui.widgets.transcript import Transcript
from textual.app import App, ComposeResult
from textual.widgets import Input, OptionList

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import ready_chat, send
from tui.test_fold_faces import seed_other_conversation


def header_drawn(app: App[None], view: MessageView) -> str:
    """The view's title line as the screen draws it (the view in view)."""
    strips = app.screen._compositor.render_strips()
    return "".join(s.text for s in strips[view.region.y])


async def header_in_view(pilot, view: MessageView) -> str:
    """`view` scrolled to the top of the transcript, its title line as drawn."""
    view.parent.scroll_to_widget(view, top=True, animate=False, immediate=True)
    await pilot.pause()
    return header_drawn(pilot.app, view)


def number_in(header: str) -> int:
    found = re.search(r"#(\d+)", header)
    assert found is not None, header
    return int(found.group(1))


async def test_each_header_shows_the_number_recall_and_the_snapshot_cite_at_80_columns(app_factory, fake, tmp_path):
    seed_other_conversation(fake, tmp_path)  # database ids and this conversation's numbers differ
    app = app_factory(window=6000, new=True)
    async with ready_chat(app, (80, 40)) as (pilot, screen):
        for n in range(3):
            await send(pilot, f"invoice INV-{n} for ACME: " + "the billing lines and totals " * 120)
        session = screen.session
        await wait_for(pilot, lambda: all(re.search(r"#\d", v.header_text()) for v in screen.query(MessageView)))
        await pilot.pause()
        numbers = session.context.message_numbers()
        views = list(screen.query(MessageView))
        assert len(views) == len(numbers) == 6
        for view in views:  # as they were sent: numbered live, not only when the transcript is read again
            assert view.data.id is not None and view.data.id != numbers[view.data.id]
            header = await header_in_view(pilot, view)
            assert number_in(header) == numbers[view.data.id], header

        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: session.context.active_fold() is not None)
        await pilot.pause(0.3)
        snapshot = session.chain.snapshot_of(session.context.active_fold())
        sections = [getattr(snapshot, name) for name in SNAPSHOT_SECTIONS]
        items = [i for s in sections for i in ([s] if isinstance(s, str) else s)]
        asked = next(v for v in screen.query(MessageView) if v.data.text.startswith("invoice INV-1"))
        shown = number_in(await header_in_view(pilot, asked))
        cited = {n for item in items if "INV-1" in item for n in split_reference(item)[1]}
        assert shown in cited, (shown, items)
        assert session.recall(message=shown).startswith(f"[message {shown}, user,")
        assert asked.data.text in session.recall(message=shown)


MODEL = "openrouter/anthropic/claude-3.5-sonnet-20241022-with-a-long-alias-name"


class PinnedReply(App[None]):
    AUTO_FOCUS = ""  # the header as drawn unselected (the transcript is no focus stop: the message would be)

    def compose(self) -> ComposeResult:
        yield Transcript()

    async def on_mount(self) -> None:
        data = MessageData(7, "assistant", "Done.", model=MODEL, number=12)
        await self.query_one(Transcript).show([data], pinned={7}, folded_upto=0)


async def test_a_long_model_name_is_shortened_at_a_word_and_the_number_and_pin_stay():
    app = PinnedReply()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(MessageView)
        header = header_drawn(app, view).strip()
        assert header.startswith("Assistant · #12 · ") and "📌 pinned" in header
        shown = header.rsplit(" · ", 1)[-1]
        assert shown.endswith("…") and MODEL.startswith(shown[:-1]) and MODEL[len(shown) - 1] in "/-_. "
        number = next(s for s in app.screen._compositor.render_strips()[view.region.y] if "#12" in s.text)
        assert number.style.bold is not True  # quiet: not the title's bold colour
        header_colour = next(s for s in app.screen._compositor.render_strips()[view.region.y] if "Assistant" in s.text)
        assert number.style.color != header_colour.style.color


def seed_long_conversation(fake, tmp_path, count: int, match_at: int, unanswered: str = "") -> tuple[int, int]:
    """A stored conversation of `count` exchanges whose question `match_at` alone mentions Cacilhas (then the
    `unanswered` prompt, if any); its id and the id of that question."""
    options = OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")
    with Session.open(options) as session:
        for n in range(count):
            text = "when does the ferry to Cacilhas leave?" if n == match_at else f"question {n} about trains"
            stored = session.add_user_message(text)
            if n == match_at:
                match = stored
            session.store.append(session.conversation_id, Message.assistant(f"answer {n} " * 30))
        if unanswered:
            session.add_user_message(unanswered)
        assert session.conversation_id is not None
        return session.conversation_id, match


async def open_from_history(pilot, screen, word: str) -> None:
    app = pilot.app
    await screen.run_slash("history")
    history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
    search = (await wait_for(pilot, lambda: history.query("#search"))).first(Input)
    search.focus()
    search.value = word
    options = history.query_one(OptionList)
    await wait_for(pilot, lambda: options.option_count == 1)
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.screen is screen)


@pytest.mark.parametrize("before", ["", "something else"])  # from the welcome panel, from a short conversation
async def test_a_history_search_opens_the_conversation_at_the_matching_message_selected(
    app_factory, fake, tmp_path, before
):
    seeded, match = seed_long_conversation(fake, tmp_path, count=45, match_at=3)  # 90 messages: past one window
    app = app_factory(new=True)
    async with ready_chat(app, (80, 30)) as (pilot, screen):
        if before:
            await send(pilot, before)
        await open_from_history(pilot, screen, "cacilh")
        await wait_for(pilot, lambda: screen.session.conversation_id == seeded)
        transcript = screen.query_one(Transcript)
        focused = await wait_for(pilot, lambda: isinstance(app.focused, MessageView) and app.focused)
        await pilot.pause(0.3)
        assert focused.data.id == match and screen.conversation.selected_message is focused
        assert focused.styles.border_top[0] == "heavy"  # the selection's accent line
        shown = transcript.scrollable_content_region
        assert shown.contains_region(focused.region.intersection(shown)) and focused.region.overlaps(shown)
        assert focused.region.y == shown.y  # at the top: its header and what follows it are in view
        assert transcript.scroll_y < transcript.max_scroll_y  # not at the end
        await pilot.pause(0.5)
        assert app.focused is focused and focused.region.overlaps(shown)  # it stays there
        assert number_in(header_drawn(app, focused)) == screen.session.context.message_numbers()[match] == 7

        await send(pilot, "and the last ferry back?")  # a new prompt goes at the end, as always
        last = screen.query_one(Transcript).message_views()[-1]
        assert last.data.role == "assistant" and last.data.status == "complete"
        await wait_for(pilot, lambda: re.search(r"#92\b", last.header_text()))
        texts = [d.text for d in transcript.items if isinstance(d, MessageData)]
        assert texts[-2:] == ["and the last ferry back?", last.data.text] and len(texts) == 92


async def test_opened_at_a_match_far_back_the_rest_comes_as_the_user_scrolls_down(app_factory, fake, tmp_path):
    seeded, match = seed_long_conversation(fake, tmp_path, count=45, match_at=0)
    app = app_factory(new=True)
    async with ready_chat(app, (80, 30)) as (pilot, screen):
        await open_from_history(pilot, screen, "cacilh")
        focused = await wait_for(pilot, lambda: isinstance(app.focused, MessageView) and app.focused)
        assert focused.data.id == match and number_in(focused.header_text()) == 1
        transcript = screen.query_one(Transcript)
        assert transcript.later > 0 and "later items" in str(transcript.query_one("#later").render())
        for _ in range(10):
            if not transcript.later:
                break
            transcript.scroll_end(animate=False, immediate=True)
            await pilot.pause(0.2)
        assert transcript.later == 0 and not transcript.query("#later")
        assert [v.data for v in transcript.message_views()] == transcript.said()  # every message once, in order
        assert [d.number for d in transcript.said()] == list(range(1, 91))
        assert screen.session.conversation_id == seeded and not screen.transcript.unanswered()


async def test_opened_far_back_a_conversation_ending_unanswered_is_answered_by_ctrl_r(app_factory, fake, tmp_path):
    """What the app asks of the last message (is it an unanswered prompt?) is asked of the conversation's last,
    not of the last one mounted."""
    seed_long_conversation(fake, tmp_path, count=45, match_at=0, unanswered="and the ferry back?")
    app = app_factory(new=True)
    async with ready_chat(app, (80, 30)) as (pilot, screen):
        await open_from_history(pilot, screen, "cacilh")
        await wait_for(pilot, lambda: isinstance(app.focused, MessageView))
        transcript = screen.query_one(Transcript)
        assert transcript.later > 0 and transcript.message_views()[-1].data.role == "assistant"
        assert screen.transcript.unanswered()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: fake.requests and transcript.message_views()[-1].data.status == "complete")
        assert fake.requests[-1]["messages"][-1]["content"] == "and the ferry back?"
        last = transcript.message_views()[-1]
        assert last.data.role == "assistant" and not last.data.superseded and transcript.later == 0
        await wait_for(pilot, lambda: re.search(r"#92\b", last.header_text()))
