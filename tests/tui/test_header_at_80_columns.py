"""What the user needs in a header is not cut at 80 columns: a reply's wait counter and cut mark come
before the model's name (a long name pushed "waiting for the model… 9 s" past the edge), and the fold
preview's summary wraps instead of ending in "kept verbati"."""

from __future__ import annotations

from foldchat.tui.widgets.message import MessageData, MessageView
from textual.app import App, ComposeResult

MODEL = "openrouter/anthropic/claude-3.5-sonnet-20241022-with-a-long-alias-name"


class OneReply(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView(MessageData(None, "assistant", "", status="streaming", model=MODEL,
                                      note="waiting for the model… 9 s"))  # fmt: skip


async def test_the_wait_counter_is_drawn_at_80_columns_whatever_the_models_name():
    app = OneReply()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert "waiting for the model… 9 s" in drawn(app)


def drawn(app: App[None]) -> str:
    """The screen as drawn, line by line."""
    return "\n".join("".join(s.text for s in strip) for strip in app.screen._compositor.render_strips())


async def test_the_fold_previews_summary_wraps_at_80_columns(app_factory, fake):
    from foldchat.tui.screens.fold_preview import FoldPreview

    from tui.conftest import wait_for
    from tui.test_chat_flows import ready_chat, send

    app = app_factory()
    async with ready_chat(app, (80, 40)) as (pilot, _screen):
        for n in range(8):
            await send(pilot, f"question {n}: the ferry times and the museums, please " * 4)
        await send(pilot, "/resummarize --preview")
        preview = await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview) and app.screen)
        await pilot.pause()
        summary = preview.query_one("#summary")
        first_line = str(summary.render()).splitlines()[0]
        assert "recent messages kept verbatim" in first_line and len(first_line) > summary.size.width
        assert summary.size.height >= 3  # wrapped onto lines of its own, not cut at the edge


class WaitingWithAReason(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView(MessageData(None, "assistant", "", status="streaming", model="local", note=""))

    def on_mount(self) -> None:
        from foldchat.tui.widgets.reply_face import WaitingNote

        self.note = WaitingNote(self, self.query_one(MessageView), "local")
        self.note.started -= 9.4
        self.note.say("read 1,024/4,096 tokens · and a reason long enough to be cut here, and further", 15.0)


async def test_the_seconds_come_before_the_reason_of_the_wait_at_80_columns():
    app = WaitingWithAReason()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert "waiting for the model… 9 s · read 1,024/4,096" in drawn(app)


async def test_the_time_left_counts_down_between_two_progress_reports():
    """Under load two reports are seconds apart: "~9 s left" stood still from 18 s to 28 s of the wait."""
    import time

    app = WaitingWithAReason()
    async with app.run_test(size=(120, 10)) as pilot:
        app.note.say("read 876/1,162 tokens", 9.0)
        assert app.note.waited().endswith("read 876/1,162 tokens, ~9 s left")
        app.note.left = (9.0, time.monotonic() - 6)  # six seconds since the server said it
        app.note.tick()
        await pilot.pause()
        assert "read 876/1,162 tokens, ~3 s left" in drawn(app)
