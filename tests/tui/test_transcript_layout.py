"""What adding a message to the transcript costs: one layout pass, drawn at the end in that pass.

Each layout pass walks every widget of the screen and each repaint of a scrolled transcript redraws all
of it; a turn adds two messages, so every extra pass or scroll here is paid twice a turn."""

from __future__ import annotations

from foldchat.tui.widgets.message import MessageData
from foldchat.tui.widgets.transcript import Transcript
from textual.app import App, ComposeResult


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


async def filled(pilot, transcript: Transcript, count: int = 30) -> None:
    for n in range(count):
        await transcript.append(MessageData(n, "user" if n % 2 == 0 else "assistant", f"message {n}"))
    await pilot.pause(0.1)


def count_calls(obj: object, name: str) -> list[int]:
    """Count calls of `obj.name` (an instance attribute shadows the method)."""
    calls: list[int] = []
    original = getattr(obj, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    setattr(obj, name, counted)
    return calls


async def test_a_message_added_at_the_end_costs_one_layout_pass_and_no_scroll_after_it():
    """Textual's virtual-size reactive asked for another whole-screen pass when the new message got its
    size and when the transcript's scrollable height changed (3 passes per message), and the scroll to
    the end came after the frame, a second repaint of every visible message."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)
        await filled(pilot, transcript)
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        passes = count_calls(app.screen, "_refresh_layout")
        scrolls = count_calls(transcript, "_refresh_scroll")
        await transcript.append(MessageData(99, "user", "the newest message"))
        for _ in range(5):
            await pilot.pause(0.05)
        assert len(passes) == 1
        assert scrolls == []  # already scrolled in the layout pass
        assert transcript.scroll_y == transcript.max_scroll_y
        newest = transcript.message_views()[-1]
        assert newest.region.bottom <= transcript.region.bottom  # on screen


async def test_a_user_who_scrolled_up_stays_there_and_is_followed_again_back_at_the_end():
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)
        await filled(pilot, transcript)
        transcript.scroll_to(y=5, animate=False)
        await pilot.pause(0.05)
        await transcript.append(MessageData(99, "user", "arrives while the user reads"))
        await pilot.pause(0.1)
        assert transcript.scroll_y == 5
        transcript.scroll_end(animate=False)
        await pilot.pause(0.05)
        await transcript.append(MessageData(100, "assistant", "arrives at the end"))
        await pilot.pause(0.1)
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_what_the_user_sends_while_scrolled_up_takes_the_transcript_to_the_end():
    """A message sent while reading back was added out of sight, and the reply streamed below it unseen."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)
        await filled(pilot, transcript)
        transcript.scroll_to(y=5, animate=False)
        await pilot.pause(0.05)
        await transcript.append_all([MessageData(99, "user", "sent while reading back")], follow=True)
        await pilot.pause(0.1)
        assert transcript.scroll_y == transcript.max_scroll_y
        await transcript.append(MessageData(100, "assistant", "the reply, followed"))
        await pilot.pause(0.1)
        assert transcript.scroll_y == transcript.max_scroll_y  # followed again


async def test_a_long_session_keeps_a_bounded_number_of_messages_mounted_and_scrolls_back_to_all():
    """Every layout pass walks every mounted widget: a session that only ever mounted made each turn dearer
    than the last. The oldest go behind "earlier" while the user is at the end, and come back on scrolling up."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show([], pinned=set(), folded_upto=0)
        await filled(pilot, transcript, count=200)
        views = transcript.message_views()
        assert Transcript.WINDOW <= len(views) <= Transcript.MOUNTED_AT_MOST
        assert [v.data.id for v in views] == list(range(200 - len(views), 200))  # the newest, in order
        assert transcript.first_mounted == 200 - len(views)
        assert app.query_one("#earlier").display
        assert transcript.scroll_y == transcript.max_scroll_y
        for _ in range(20):  # scroll back to the start: each time at the top, the previous batch mounts
            transcript.scroll_home(animate=False)
            await pilot.pause(0.05)
            if transcript.first_mounted == 0:
                break
        assert [v.data.id for v in transcript.message_views()] == list(range(200))


async def test_the_scrollbar_shows_while_reading_back_and_not_at_the_end_where_messages_arrive():
    """At the end every new message moved the bar and repainted all of it, in a frame of its own."""
    from textual.scrollbar import ScrollBar

    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.query_one(Transcript)

        def bar_drawn() -> bool:
            widget, _ = app.screen.get_widget_at(transcript.scrollable_content_region.right, transcript.region.y + 1)
            return isinstance(widget, ScrollBar)

        await filled(pilot, transcript)
        await transcript.append(MessageData(99, "user", "the newest message"))
        await pilot.pause(0.1)
        assert transcript.max_scroll_y > 0 and not bar_drawn()
        width = transcript.scrollable_content_region.width
        transcript.scroll_to(y=5, animate=False)
        await pilot.pause(0.05)
        assert bar_drawn()
        assert transcript.scrollable_content_region.width == width  # its column was kept: nothing reflows
        transcript.scroll_end(animate=False)
        await pilot.pause(0.05)
        assert not bar_drawn()
