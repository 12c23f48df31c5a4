"""A small yes/no dialog for destructive actions (undo a fold, delete a conversation).

"Cancel" holds the default focus, so Enter pressed out of habit never destroys anything; `y` or the
red button confirms, Esc or `n` backs out.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from ..literal import literal


class ConfirmDialog(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; }
    ConfirmDialog > Vertical { width: 64; max-width: 95%; height: auto; border: thick $warning;
                               background: $surface; padding: 1 2; }
    ConfirmDialog #question { width: 100%; }
    ConfirmDialog Horizontal { height: auto; margin: 1 0 0 0; }
    ConfirmDialog Button { margin: 0 1 0 0; }
    """
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Confirm"),
    ]

    def __init__(self, question: str, confirm: str) -> None:
        super().__init__()
        self.question = question
        self.confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.question), id="question")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button(literal(f"{self.confirm} (y)"), id="confirm", variant="error")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")

    def action_answer(self, confirmed: bool) -> None:
        self.dismiss(confirmed)
