"""Pasted text stays pasted text, whatever bytes it holds.

Textual's input parser reads an ESC inside a bracketed paste as the start of a key sequence, and when the
bytes after it make no sequence it sends them on as key presses, ahead of the paste: a pasted
`\\x1b]0;x\\x11` quit the app (0x11 is Ctrl+Q), a pasted Ctrl+L would clear the chat, and the rest of the
paste came in reordered with `^` for the ESC. Here every ESC between the start and the end of a bracketed
paste becomes the visible stand-in the composer shows for it (␛) before the parser reads it, so the paste
arrives as one `Paste` event holding what was pasted. Outside a paste nothing is changed or held back (an
Escape key press must arrive at once).

`install()` makes the terminal drivers build this parser instead of Textual's own (they name it at module
level); tests/tui/test_paste_guard.py fails if a Textual release stops building it that way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser

ESC = "\x1b"
ESC_SHOWN = "␛"  # what untrusted_text.visible shows for it


class PasteSafeParser(XTermParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_paste = False
        self._tail = ""
        """Outside a paste: the last characters passed on, to find a start marker split across two reads."""
        self._held = ""
        """Inside a paste: the end of a read that may be the start of the end marker, kept for the next."""

    def feed(self, data: str) -> Iterable[Any]:
        if not data:  # the end of input: what was held back goes first
            held, self._held = self._held, ""
            return [*(super().feed(held) if held else ()), *super().feed(data)]
        safe = self.made_safe(data)
        return super().feed(safe) if safe else ()  # all held back: an empty feed would mean the end of input

    def made_safe(self, data: str) -> str:
        """`data` with every ESC inside a bracketed paste made visible (the markers themselves kept)."""
        text, self._held = self._held + data, ""
        out: list[str] = []
        pos = 0
        while pos < len(text):
            if not self._in_paste:
                probe = self._tail + text[pos:]
                found = probe.find(BRACKETED_PASTE_START)
                if found < 0:
                    out.append(text[pos:])
                    self._tail = probe[-(len(BRACKETED_PASTE_START) - 1) :]
                    break
                after = pos + found + len(BRACKETED_PASTE_START) - len(self._tail)
                out.append(text[pos:after])
                pos, self._in_paste, self._tail = after, True, ""
                continue
            found = text.find(BRACKETED_PASTE_END, pos)
            if found < 0:
                rest = text[pos:]
                kept = _marker_start_at_end(rest)
                out.append(rest[: len(rest) - kept].replace(ESC, ESC_SHOWN))
                self._held = rest[len(rest) - kept :]
                break
            out.append(text[pos:found].replace(ESC, ESC_SHOWN) + BRACKETED_PASTE_END)
            pos, self._in_paste = found + len(BRACKETED_PASTE_END), False
        return "".join(out)


def _marker_start_at_end(text: str) -> int:
    """How many of `text`'s last characters could begin the end-of-paste marker (0 if none)."""
    for size in range(min(len(text), len(BRACKETED_PASTE_END) - 1), 0, -1):
        if BRACKETED_PASTE_END.startswith(text[-size:]):
            return size
    return 0


def install() -> None:
    """The terminal drivers build `PasteSafeParser` from now on (the app calls this before it runs)."""
    from textual.drivers import linux_driver, linux_inline_driver

    for driver in (linux_driver, linux_inline_driver):
        driver.XTermParser = PasteSafeParser  # type: ignore[attr-defined]  # the name each driver builds it by
