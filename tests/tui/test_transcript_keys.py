"""Moving through the transcript with the keys a chat app has: PageUp/PageDown page it from the composer (unless
the composer holds more than it shows: then they are the composer's), and ↑/↓ on a selected message select
the one before or after it (↓ on the last goes back to the composer); Tab from the composer selects the
latest message (it stopped on the transcript's scroll view, which showed nothing, then went to #1)."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.message import MessageView
from foldchat.tui.widgets.transcript import Transcript

from tui.test_chat_flows import ready_chat, send

REPLY = "\n\n".join(f"Paragraph {i} of a long answer about the trip." for i in range(12))


async def test_page_keys_page_the_transcript_from_the_composer(app_factory, fake):
    fake.reply = REPLY
    async with ready_chat(app_factory(), (80, 24)) as (pilot, screen):
        for question in ("first question", "second question", "third question"):
            await send(pilot, question)
        transcript, composer = screen.query_one(Transcript), screen.query_one(Composer)
        await pilot.pause()
        assert composer.has_focus and transcript.max_scroll_y > 0
        bottom = transcript.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_y < bottom and composer.has_focus  # paged, still typing where it was
        await pilot.press("pagedown")
        await pilot.pause()
        assert transcript.scroll_y > bottom - transcript.size.height // 2
        composer.text = "\n".join(f"line {i}" for i in range(40))  # more than the composer shows
        await pilot.pause()
        at = transcript.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_y == at and composer.cursor_location[0] < 39  # the composer's own page up


async def test_tab_selects_the_latest_message_and_up_and_down_its_neighbours(app_factory, fake):
    async with ready_chat(app_factory(), (100, 30)) as (pilot, screen):
        fake.reply = "one"
        await send(pilot, "first question")
        fake.reply = "two"
        await send(pilot, "second question")
        views = list(screen.query(MessageView))
        assert [v.data.text for v in views] == ["first question", "one", "second question", "two"]
        screen.query_one(Composer).focus()
        await pilot.press("tab")  # from the composer: the latest message, not the first nor the scroll view
        assert views[-1].has_focus
        await pilot.press("up")
        assert views[2].has_focus
        await pilot.press("up", "up", "up")  # stays on the first
        assert views[0].has_focus
        await pilot.press("down")
        assert views[1].has_focus
        await pilot.press("down", "down", "down")  # past the last: back to the composer
        assert screen.query_one(Composer).has_focus
