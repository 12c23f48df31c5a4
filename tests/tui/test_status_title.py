"""The status line's conversation title: cut at a word with "…", never mid-word at the screen's edge."""

from __future__ import annotations

from foldchat.tui.widgets.status_line import TITLE_CHARS, short_title


def test_a_long_title_is_cut_at_a_word_with_an_ellipsis():
    title = "ok so my husband and I are planning two weeks in Portugal and Spain and I'm already overwhelmed"
    short = short_title(title)
    assert len(short) <= TITLE_CHARS and short.endswith("…")
    assert title.startswith(short[:-1]) and title[len(short) - 1] == " "  # the cut falls between words
    assert short_title("Trip to Porto") == "Trip to Porto"
