"""What can be done with one message, chosen on purpose: Enter on a selected message opens this menu.

A selected message takes no bare letters (typing "pizza" with a message selected once pinned it and
left "izza"): printable keys go to the composer, and the actions live here, each with its letter.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

ACTIONS: tuple[tuple[str, str], ...] = (
    ("pin", "p  Pin / unpin (quoted verbatim in every snapshot)"),
    ("copy", "c  Copy the message"),
    ("copy_code", "y  Copy its last code block"),
    ("edit", "e  Edit and resend (a prompt)"),
)


class MessageActions(ModalScreen[str | None]):
    """A small menu of one message's actions; dismisses with the action's name, or None."""

    DEFAULT_CSS = """
    MessageActions { align: center middle; }
    MessageActions > OptionList { width: 60; max-width: 95%; height: auto; border: thick $primary;
                                  background: $surface; }
    """
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("p", "choose('pin')", "Pin", show=False),
        Binding("c", "choose('copy')", "Copy", show=False),
        Binding("y", "choose('copy_code')", "Copy code", show=False),
        Binding("e", "choose('edit')", "Edit", show=False),
    ]

    def __init__(self, prompt: bool) -> None:
        super().__init__()
        self.offered = [(name, label) for name, label in ACTIONS if prompt or name != "edit"]

    def compose(self) -> ComposeResult:
        menu = OptionList(*(Option(label, id=name) for name, label in self.offered))
        menu.border_title = "Message"
        yield menu

    def action_choose(self, name: str) -> None:
        if any(name == offered for offered, _ in self.offered):
            self.dismiss(name)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
