"""A bracketed paste is one `Paste` event holding what was pasted, whatever bytes it holds: Textual's parser
took an ESC inside a paste for a key sequence and sent the bytes after it as key presses (a pasted 0x11 quit
the app, as Ctrl+Q). Property: however the terminal's bytes are split into reads, the same events come out."""

from __future__ import annotations

from foldchat.tui import paste_guard
from foldchat.tui.paste_guard import PasteSafeParser
from hypothesis import given, settings, strategies as st
from textual import events
from textual._xterm_parser import XTermParser

START, END = "\x1b[200~", "\x1b[201~"
HOSTILE = "guest list:\r[/b] [@click=app.quit]x[/]\r\x1b]2;HACKED\x07 Ana\x1b]0;x\x11 tail"


def events_of(parser: XTermParser, *reads: str) -> list[tuple[str, str]]:
    out = []
    for data in (*reads, ""):
        for event in parser.feed(data):
            if isinstance(event, events.Paste):
                out.append(("paste", event.text))
            elif isinstance(event, events.Key):
                out.append(("key", event.key))
    return out


def test_textual_alone_turns_a_pasted_escape_into_key_presses():
    """Why the guard exists: if Textual's own parser stops doing this, the guard can go."""
    keys = [k for kind, k in events_of(XTermParser(), START + HOSTILE + END) if kind == "key"]
    assert "ctrl+q" in keys


def test_a_hostile_paste_is_one_paste_and_no_key():
    assert events_of(PasteSafeParser(), START + HOSTILE + END) == [("paste", HOSTILE.replace("\x1b", "␛"))]


def test_outside_a_paste_an_escape_is_still_a_key_and_arrives_at_once():
    parser = PasteSafeParser()
    assert [k for kind, k in events_of(parser, "a\x1b[A") if kind == "key"] == ["a", "up"]
    assert parser.made_safe("\x1b") == "\x1b"  # nothing held back: a lone Esc press goes to the parser now


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(alphabet="ab \r", max_size=5),
    pasted=st.text(alphabet="xy\x1b\x07\x11\r[]0;", max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=6),
)
def test_the_same_events_however_the_bytes_are_split(before, pasted, cuts):
    stream = before + START + pasted + END + "z"
    whole = events_of(PasteSafeParser(), stream)
    edges = sorted({c % (len(stream) + 1) for c in cuts})
    reads = [stream[a:b] for a, b in zip([0, *edges], [*edges, len(stream)], strict=True) if stream[a:b]]
    assert events_of(PasteSafeParser(), *reads) == whole
    assert ("paste", pasted.replace("\x1b", "␛")) in whole
    assert not any(kind == "key" and key.startswith("ctrl+") for kind, key in whole)


def test_the_drivers_build_the_guarded_parser_once_installed(monkeypatch):
    from textual.drivers import linux_driver, linux_inline_driver

    for driver in (linux_driver, linux_inline_driver):
        assert driver.XTermParser is XTermParser or driver.XTermParser is PasteSafeParser  # still built by name
        monkeypatch.setattr(driver, "XTermParser", XTermParser)
    paste_guard.install()
    assert linux_driver.XTermParser is PasteSafeParser and linux_inline_driver.XTermParser is PasteSafeParser
