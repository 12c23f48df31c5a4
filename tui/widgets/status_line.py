"""The line above the transcript: which conversation this is, then what the app is doing."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Label

from ..literal import excerpt


class StatusLine(Label):
    """Bound to the chat screen's `conversation_title` and `status` (`data_bind`); one line of fixed size
    (chat.tcss), so a change repaints this line alone, never lays out the screen."""

    title: reactive[str] = reactive("", layout=False, init=False)
    status: reactive[str] = reactive("", layout=False, init=False)

    def watch_title(self) -> None:
        self._show()

    def watch_status(self) -> None:
        self._show()

    def _show(self) -> None:
        title = short_title(self.title)
        self.update(f"{title} · {self.status}" if title else self.status, layout=False)


TITLE_CHARS = 48  # room left on the line for what the app is doing


def short_title(title: str) -> str:
    """`title` in at most `TITLE_CHARS`, cut at a word with "…" (not "I'm already ov" at the edge)."""
    return excerpt(title, TITLE_CHARS - 1)
