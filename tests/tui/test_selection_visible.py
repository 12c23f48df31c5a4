"""A selected message is obvious in every built-in theme: its top edge becomes a heavy line in the accent
colour, far from the background (it was `$boost`, colour 233 against 234)."""

from __future__ import annotations

from foldchat.tui.widgets.message import MessageData, MessageView
from textual.app import App, ComposeResult


class TwoMessages(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView(MessageData(1, "user", "first"))
        yield MessageView(MessageData(2, "assistant", "second", model="m"))


async def test_the_selected_message_stands_out_in_every_theme():
    app = TwoMessages()
    async with app.run_test(size=(80, 20)) as pilot:
        first, second = app.query(MessageView)
        for theme in sorted(app.available_themes):
            app.theme = theme
            first.focus()
            await pilot.pause()
            edge_style, edge_colour = first.styles.border_top
            behind = app.screen.styles.background
            assert edge_style == "heavy" and second.styles.border_top[0] != "heavy", theme
            distance = sum(abs(a - b) for a, b in zip(edge_colour.rgb, behind.rgb, strict=True))
            assert distance >= 120, (theme, edge_colour, behind)  # 233 against 234 was a distance of 3


class AFoldedMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageView(MessageData(1, "user", "folded away"), folded=True)
        yield MessageView(MessageData(2, "assistant", "kept", model="m"))


async def test_a_selected_message_inside_a_fold_is_drawn_in_full_not_dimmed():
    """A search opens at a match inside a fold: its accent line was dimmed with it to a dark olive."""
    app = AFoldedMessage()
    async with app.run_test(size=(80, 20)) as pilot:
        folded = app.query(MessageView).first()
        app.set_focus(None)
        await pilot.pause()
        assert folded.styles.opacity < 1  # a folded message is dimmed while it is not selected
        folded.focus()
        await pilot.pause()
        assert folded.styles.opacity == 1 and folded.styles.border_top[0] == "heavy"
