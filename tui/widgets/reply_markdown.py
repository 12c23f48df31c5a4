"""A reply's Markdown drawn by one widget.

Textual's `Markdown` widget mounts a widget per block, list item, bullet and fence: about 45 for an
ordinary reply with a list and a code block. Every layout pass of the screen walks every widget of the
transcript, so a 20-message chat cost ~900 widgets per pass while a reply streamed, and opening a
conversation mounted ~2,000 widgets before its last message showed. Here the whole reply is
one widget that renders Rich's Markdown (the same markdown-it parse, drawn as lines): a layout pass
visits it once, and its height is cached by width until its text changes.

A single newline in a reply is a line break (Markdown would join the lines into one paragraph).

Text is data: Rich's Markdown reads Markdown only, never console markup, so brackets stay literal;
escape bytes were made visible before the text got here.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from textual.visual import VisualType

from .placed import PlacedWidget

if TYPE_CHECKING:
    from rich.markdown import Markdown


@cache
def chat_markdown() -> type[Markdown]:
    """Rich's Markdown with every heading at the left, built on first use: Rich's Markdown and
    markdown-it cost ~35 ms to import, and a new conversation's first frame needs neither."""
    from rich.markdown import Heading, Markdown

    class LeftHeading(Heading):
        # Rich centres a level-1 heading, which reads as a banner in a chat
        LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")

    class ChatMarkdown(Markdown):
        elements: ClassVar = {**Markdown.elements, "heading_open": LeftHeading}

        def __init__(self, markup: str, **options: Any) -> None:
            super().__init__(markup, **options)
            # a single newline is a line break, as the model wrote it: Markdown's rule joins the lines of
            # a poem, an address or a step list into one paragraph (the stored text keeps them apart)
            for token in self.parsed:
                for child in token.children or ():
                    if child.type == "softbreak":
                        child.type = "hardbreak"

    return ChatMarkdown


CODE_THEME = "monokai"
"""A dark code box, as Textual's own Markdown draws fences, on dark and light themes alike."""


def reply_markdown(source: str) -> Markdown:
    """`source` as the transcript draws a reply: headings at the left, code boxed, links shown as text."""
    return chat_markdown()(source, code_theme=CODE_THEME, hyperlinks=False)


class ParsedMarkdown:
    """A widget's reply Markdown, parsed again only when its text changed: Textual renders a widget for
    its height and again for its lines, and drops the rendered visual at every layout pass."""

    def __init__(self) -> None:
        self._source: str | None = None
        self._parsed: Markdown | None = None

    def of(self, source: str) -> Markdown:
        if self._parsed is None or source != self._source:
            self._source, self._parsed = source, reply_markdown(source)
        return self._parsed


class ReplyMarkdown(PlacedWidget):
    """`source` drawn as Markdown; `update` replaces it (one layout pass, as the height may change)."""

    DEFAULT_CSS = """
    ReplyMarkdown { height: auto; }
    ReplyMarkdown.-segment { margin-top: 1; }  /* the blank line Markdown puts between two blocks */
    """

    def __init__(self, source: str = "", classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.source = source
        self._markdown = ParsedMarkdown()

    def update(self, source: str) -> None:
        self.source = source
        self.refresh(layout=True)  # a repaint also drops the cached height

    def render(self) -> VisualType:
        return self._markdown.of(self.source)
