"""The line above the transcript: which conversation this is, then what the app is doing."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Label

from ..literal import excerpt


class StatusLine(Label):
    """Bound to the chat screen's `conversation_title` and `status` (`data_bind`); one line of fixed size
    (chat.tcss), so a change repaints this line alone, never lays out the screen."""

    # the room the title gets is measured on the line's own width: an auto width would shrink to the last text
    DEFAULT_CSS = "StatusLine { width: 100%; }"

    title: reactive[str] = reactive("", layout=False, init=False)
    status: reactive[str] = reactive("", layout=False, init=False)

    def watch_title(self) -> None:
        self._show()

    def watch_status(self) -> None:
        self._show()

    def on_resize(self) -> None:
        self._show()

    def _show(self) -> None:
        # what the app is doing comes whole before the title's room: at 80 columns a 48-character title cut
        # "waiting for the model… 31 s" to "waiting for the", and the line looked frozen
        room = (self.content_size.width or 10_000) - len(self.status) - len(" · ")  # inside its padding
        title = short_title(self.title, room) if room >= MIN_TITLE_CHARS else ""
        self.update(f"{title} · {self.status}" if title else self.status, layout=False)


TITLE_CHARS = 48  # at most, when the line has room
MIN_TITLE_CHARS = 12  # a shorter title says nothing: the line shows only what the app is doing


def short_title(title: str, room: int = TITLE_CHARS) -> str:
    """`title` in at most `TITLE_CHARS` (and `room`), cut at a word with "…" (not "I'm already ov" at the edge)."""
    return excerpt(title, min(TITLE_CHARS, room) - 1)
