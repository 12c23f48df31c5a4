"""The status line's conversation title: cut at a word with "…", never mid-word at the screen's edge."""

from __future__ import annotations

from foldchat.tui.widgets.status_line import TITLE_CHARS, StatusLine, short_title
from textual.app import App, ComposeResult


def test_a_long_title_is_cut_at_a_word_with_an_ellipsis():
    title = "ok so my husband and I are planning two weeks in Portugal and Spain and I'm already overwhelmed"
    short = short_title(title)
    assert len(short) <= TITLE_CHARS and short.endswith("…")
    assert title.startswith(short[:-1]) and title[len(short) - 1] == " "  # the cut falls between words
    assert short_title("Trip to Porto") == "Trip to Porto"


class OneStatusLine(App[None]):
    def compose(self) -> ComposeResult:
        line = StatusLine("", id="status", markup=False)
        line.title = "Write a Python function that reverses a string, and explain slicing"
        yield line


async def test_what_the_app_is_doing_is_not_cut_for_the_title_at_80_columns():
    """At 80 columns the 48-character title left "local · waiting for the" and the ticking seconds were gone."""
    app = OneStatusLine()
    async with app.run_test(size=(80, 3)) as pilot:
        line = app.query_one(StatusLine)
        line.status = "local · waiting for the model… 31 s · read 1,163/3,338 tokens, ~40 s left"
        await pilot.pause()
        assert str(line.render()) == line.status  # the title gave way: it had taken the seconds' place
        line.status = "local · 8,192 token window"  # room again: the title comes back, cut at a word
        await pilot.pause()
        assert str(line.render()).startswith("Write a Python function") and line.status in str(line.render())
