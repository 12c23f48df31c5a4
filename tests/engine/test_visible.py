"""Terminal safety: control characters from text we did not write are shown, never executed."""

from __future__ import annotations

import json
import unicodedata

from foldchat.engine import json_safe, visible
from hypothesis import given
from hypothesis import strategies as st

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
    assert all(ch in remaining for ch in text.replace("\r\n", "\n") if ch in "\n\t" or not _controls(ch))
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
