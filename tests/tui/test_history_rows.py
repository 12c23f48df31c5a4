"""A conversation in /history is one line (two with the line a search matched), however long its title: a
wrapped title went on at the left edge, under the id column, and read as the next row."""

from __future__ import annotations

import time

from foldchat.tui.screens.history import ConversationRow, HistoryScreen
from textual.app import App
from textual.widgets import OptionList

TITLE = "A very long conversation title about the Lisbon trip, its hotels, trams and invoices " * 2


class HistoryApp(App[None]):
    def __init__(self, rows: list[ConversationRow]) -> None:
        super().__init__()
        self.rows = rows

    def on_mount(self) -> None:
        self.push_screen(HistoryScreen(self.rows, lambda _: self.rows))


async def test_a_long_title_and_a_long_match_take_one_line_each_at_80_columns():
    rows = [
        ConversationRow(1, TITLE, "gpt-4o", time.time(), 12),
        ConversationRow(2, TITLE, "gpt-4o", time.time(), 3, excerpt="the invoice INV-1042 is due " * 10, message_id=7),
        ConversationRow(3, "short", None, time.time(), 1),
    ]
    app = HistoryApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert options.option_count == 3
        assert options.virtual_size.height == 4  # 1 + 2 + 1
