"""What the next message will attach, one line each (name, size, tokens), above the composer.

A file goes in by `/attach`, `@path` or a pasted path; Delete (or Backspace) on a highlighted line takes
it out, and Backspace in an empty composer takes out the last one (said, and Ctrl+Z puts it back). Each
change is posted up as `Changed` with the tokens they add, so the gauge's count of what is about to be
sent includes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import human_size
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ..literal import literal
from .latest import Latest

if TYPE_CHECKING:
    from foldchat.engine import Attachment


class AttachmentTray(OptionList):
    DEFAULT_CSS = """
    AttachmentTray { height: auto; max-height: 6; display: none; border: none; padding: 0 1; }
    """
    BINDINGS = [Binding("delete,backspace", "remove", "Remove attachment")]

    class Changed(Latest):
        """The attachments changed: what they add to the next message, in tokens."""

        def __init__(self, tokens: int) -> None:
            super().__init__()
            self.tokens = tokens

    def __init__(self) -> None:
        super().__init__(id="attachments")
        self.items: list[tuple[Attachment, int]] = []
        self.counted: dict[str, int] = {}
        """Tokens of every attachment seen, by content hash: one put back after a refused send is not counted
        again."""

    @property
    def tokens(self) -> int:
        return sum(tokens for _, tokens in self.items)

    @property
    def attachments(self) -> list[Attachment]:
        return [attachment for attachment, _ in self.items]

    def add(self, attachment: Attachment, tokens: int) -> None:
        """One more (the same file attached again is listed once)."""
        tokens = tokens or self.counted.get(attachment.sha256, 0)
        self.counted[attachment.sha256] = tokens
        same = (attachment.name, attachment.sha256)  # two package.json files of other folders are two
        self.items = [item for item in self.items if (item[0].name, item[0].sha256) != same] + [(attachment, tokens)]
        self._show()

    def action_remove(self) -> None:
        if self.items and self.highlighted is not None:
            del self.items[min(self.highlighted, len(self.items) - 1)]
            self._show()
            if not self.items:
                self.screen.focus_next()

    def remove_last(self) -> tuple[Attachment, int] | None:
        """The last one out, returned (to be put back by `add`), or None with none in."""
        if not self.items:
            return None
        removed = self.items.pop()
        self._show()
        return removed

    def take(self) -> list[Attachment]:
        """The attachments, handed to the message being sent; the tray is empty after."""
        taken = self.attachments
        self.items = []
        self._show()
        return taken

    def _show(self) -> None:
        self.clear_options()
        for attachment, tokens in self.items:
            counted = "image" if attachment.is_image else f"{tokens:,} tokens"  # an image's tokens are the provider's
            line = f"attached {attachment.name} · {human_size(attachment.size)} · {counted}"
            self.add_option(Option(literal(line)))
        self.display = bool(self.items)
        self.post_message(self.Changed(self.tokens))
