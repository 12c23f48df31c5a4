"""Text we did not write, ready for any widget: shown exactly as typed, never obeyed.

Messages, titles, tool names and arguments, model names and provider errors may hold Textual markup
(`[/quote]`, `[@click=...]`) or terminal control bytes. Every widget that shows such text gets it
through `literal()`: a `Content` value (never parsed as markup) whose control characters are visible
stand-ins (the engine's `visible`).
"""

from __future__ import annotations

import re

from foldchat.engine import visible
from rich.cells import cell_len
from textual.content import Content


def literal(text: str) -> Content:
    return Content(visible(text))


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def md_literal(text: str) -> str:
    """`text` shown as written in Markdown: every character Markdown reads as syntax is escaped
    (`__future__` stayed "future" in bold; a snapshot item is data, not formatting)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def excerpt(text: str, limit: int = 100) -> str:
    """The start of `text` on one line, cut at a word (not mid-word) with an ellipsis when it goes on."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit + 1].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return cut.rstrip(",;:") + "…"


_WORD_BREAK = re.compile(r"[\s/_.:,;-]")


def shortened(text: str, cells: int) -> str:
    """`text` in at most `cells` terminal cells: whole when it fits, else cut before a word break (a space, or
    the / - _ . : of a name like a model's) with an ellipsis; mid-word only when its first word is longer."""
    if cell_len(text) <= cells:
        return text
    if cells <= 1:
        return "…"[:cells]
    head = text[: cells - 1]
    while cell_len(head) > cells - 1:  # wide characters (an emoji) take two cells
        head = head[:-1]
    breaks = [m.start() for m in _WORD_BREAK.finditer(text, 1, len(head) + 1)]
    cut = head[: breaks[-1]] if breaks else head
    return cut.rstrip(",;:/-_. ") + "…"
