"""One message of the conversation, word for word, by its number: what the fold inspector opens (a
folded or recalled message; snapshots and recalled passages cite "#12")."""

from __future__ import annotations

from foldchat.engine import visible
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

from ..literal import literal


class MessageText(ModalScreen[None]):
    DEFAULT_CSS = """
    MessageText { align: center middle; }
    MessageText > VerticalScroll { width: 100; max-width: 95%; height: auto; max-height: 85%;
                                   border: thick $primary; background: $surface; padding: 0 1; }
    MessageText .title { text-style: bold; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Back")]

    def __init__(self, number: int, role: str, text: str) -> None:
        super().__init__(id="message-text")
        self.number, self.role, self.text = number, role, text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label(literal(f"#{self.number} · {self.role}"), classes="title")
            yield Static(visible(self.text), markup=False)  # text we did not write: shown as it is
        yield Footer()
