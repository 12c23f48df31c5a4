"""Read-only modal screens: /help and /context."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown


class InfoScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    InfoScreen { align: center middle; }
    InfoScreen > VerticalScroll { width: 100; max-width: 95%; height: auto; max-height: 90%;
                                   border: thick $primary; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close"), Binding("q", "dismiss(None)", "Close")]

    def __init__(self, markdown: str, screen_id: str) -> None:
        super().__init__(id=screen_id)
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.markdown)
