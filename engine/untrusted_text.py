"""Text we did not write, made safe for a terminal: control bytes become visible, never obeyed.

Messages, titles, tool output and provider errors may hold ESC/CSI/OSC sequences, BEL or C1 controls
that a terminal would execute (clear the screen, set the title, write the clipboard through OSC 52).
`visible()` maps every such character to a printable stand-in (ESC → `␛`, BEL → `␇`, C1 `\\x9b` →
`<9b>`) so the text reads the same but cannot act. Newlines and tabs stay as they are; a lone
carriage return (which would let later text overwrite earlier text) becomes `␍`.

Lone surrogates (a JSON export's `"\\ud83d"` cut from its pair, an emoji split across two streamed
chunks, undecodable input read with `surrogateescape`) have no UTF-8 form: writing one to a terminal or a
database raises. `visible()` shows each as U+FFFD; `whole_text()` joins split pairs and replaces the rest.

`json_safe()` does the same job for JSON text without changing its meaning: the characters JSON leaves
raw (DEL and C1) are written as `\\u00XX` escapes, so the decoded strings are exactly the originals.
"""

from __future__ import annotations

import re

_KEEP = {"\n", "\t"}


def _picture(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode "control pictures": ␀ … ␟ (ESC is ␛)
    if code == 0x7F:
        return "␡"
    return f"<{code:02x}>"  # C1 controls have no pictures


_VISIBLE = {code: _picture(code) for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if chr(code) not in _KEEP}
_VISIBLE.update(dict.fromkeys(range(0xD800, 0xE000), "\ufffd"))  # lone surrogates: no UTF-8 form
_JSON_RAW = {code: f"\\u{code:04x}" for code in [0x7F, *range(0x80, 0xA0)]}
_ANY_VISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # exactly _VISIBLE's keys (a test checks)


def visible(text: str) -> str:
    """`text` with every terminal control character replaced by a visible stand-in (linear time)."""
    if _ANY_VISIBLE.search(text) is None:  # most text: one scan in C, not a table lookup per character
        return text
    return text.replace("\r\n", "\n").translate(_VISIBLE)


def whole_text(text: str) -> str:
    """`text` with surrogate pairs joined into their characters and lone surrogates as U+FFFD: text that
    UTF-8 can encode, as close to the original as it gets."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def json_safe(json_text: str) -> str:
    """JSON text with DEL and C1 characters escaped: same decoded value, safe to print."""
    return json_text.translate(_JSON_RAW)
