"""A conversation's title from its first message: cut at a word with "…", from the app and from an import."""

from __future__ import annotations

from foldchat.engine.importer import read_conversations
from foldchat.engine.store.records import TITLE_CHARS, title_of

FIRST = "JORDAN. ok I have like 20 min before the rice is done (rip basmati) so here's the whole saga from the start"


def test_a_long_first_message_gives_a_title_cut_at_a_word():
    title = title_of(FIRST)
    assert len(title) <= TITLE_CHARS + 1 and title.endswith("…")
    assert FIRST.startswith(title[:-1]) and FIRST[len(title) - 1] == " "
    assert title_of("Trip to Porto") == "Trip to Porto"


def test_an_imported_chat_is_titled_the_same_way():
    [imported] = read_conversations([{"role": "user", "content": FIRST}, {"role": "assistant", "content": "Go on!"}])
    assert imported.title == title_of(FIRST)
