"""Terminal safety: control characters from text we did not write are shown, never executed."""

from __future__ import annotations

import json
import unicodedata

from foldchat.engine import json_safe, visible
from foldchat.engine.untrusted_text import whole_text
from hypothesis import given, strategies as st

HOSTILE = [
    "\x1b[2J",  # clear screen
    "\x1b]0;pwned\x07",  # set the window title
    "\x1b]52;c;ZWNobyBoaQ==\x07",  # write the clipboard
    "\x9b31m",  # C1 CSI
    "\x9d52;c;x\x9c",  # C1 OSC ... ST
    "\x07",
    "a\rb",
]


def _controls(text: str) -> list[str]:
    return [ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\n\t"]


def _surrogate(ch: str) -> bool:
    return unicodedata.category(ch) == "Cs"


def test_lone_surrogates_are_shown_as_replacement_characters_and_stored_pairs_joined():
    """An emoji split across two streamed chunks, or cut from its pair in a JSON export, leaves lone
    surrogates: UTF-8 has no form for them, so a terminal write or a database row raised."""
    assert visible("a\ud800b") == "a\ufffdb"
    assert whole_text("x\ud83d" + "\ude00y \udcff") == "x\U0001f600y \ufffd"
    assert whole_text("plain [b] text") == "plain [b] text"


@given(st.text(alphabet=st.characters(codec=None, categories=["Cs", "Ll", "So", "Po"])))
def test_whole_text_is_always_encodable_and_keeps_every_other_character(text):
    whole = whole_text(text)
    whole.encode("utf-8")
    remaining = iter(whole)
    assert all(ch in remaining for ch in text if not _surrogate(ch))
    if not any(_surrogate(ch) for ch in text):
        assert whole == text


def test_escape_sequences_become_visible():
    assert visible("\x1b[2Jhi") == "␛[2Jhi"
    assert visible("ring\x07") == "ring␇"
    assert visible("\x9b31m") == "<9b>31m"
    assert visible("line 1\r\nline 2\tx") == "line 1\nline 2\tx"
    assert visible("over\rwrite") == "over␍write"


@given(st.text())
def test_no_control_character_survives(text):
    shown = visible(text)
    assert _controls(shown) == []
    # every printable character (brackets, markup-like tags, unicode) is kept, in order
    remaining = iter(shown)
    kept = [ch for ch in text.replace("\r\n", "\n") if ch in "\n\t" or not (_controls(ch) or _surrogate(ch))]
    assert all(ch in remaining for ch in kept)
    shown.encode("utf-8")  # a lone surrogate cannot be written to a terminal: it is shown as U+FFFD
    assert visible(shown) == shown  # idempotent: nothing left to neutralise


@given(st.text(alphabet=st.characters(blacklist_categories=["Cc", "Cs"])))
def test_ordinary_text_is_unchanged(text):
    assert visible(text) == text


@given(
    st.recursive(
        st.text() | st.integers() | st.none(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)
    )
)
def test_json_safe_keeps_the_value_exactly(value):
    dumped = json_safe(json.dumps(value, ensure_ascii=False))
    assert json.loads(dumped) == value
    assert _controls(dumped) == []


def test_hostile_samples():
    for sample in HOSTILE:
        assert "\x1b" not in visible(sample) and "\x07" not in visible(sample)
        assert _controls(visible(sample)) == []


def test_the_quick_check_for_text_to_replace_matches_exactly_the_replaced_characters():
    from foldchat.engine.untrusted_text import _ANY_VISIBLE, _VISIBLE

    matched = {code for code in range(0x10000) if _ANY_VISIBLE.match(chr(code))}
    assert matched == set(_VISIBLE) and _ANY_VISIBLE.match("\U0010ffff") is None
