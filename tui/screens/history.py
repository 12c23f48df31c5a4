"""Browse conversations: search, resume (Enter), rename (r), delete (d)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ..literal import literal


@dataclass(frozen=True)
class ConversationRow:
    id: int
    title: str
    model: str | None
    updated_at: float
    messages: int

    def label(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.updated_at))
        return f"{self.id:>5}  {when}  {self.messages:>5} msgs  {self.title or 'untitled'}"


@dataclass(frozen=True)
class HistoryAction:
    action: Literal["resume", "rename", "delete"]
    conversation_id: int
    title: str = ""


class HistoryScreen(ModalScreen[HistoryAction | None]):
    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical { width: 100; max-width: 95%; height: 80%; border: thick $primary;
                               background: $surface; padding: 0 1; }
    HistoryScreen OptionList { height: 1fr; }
    HistoryScreen #rename { display: none; }
    HistoryScreen.-renaming #rename { display: block; }
    """
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("d", "delete", "Delete"),
        Binding("r", "rename", "Rename"),
    ]

    def __init__(self, rows: list[ConversationRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Conversations · Enter resume · r rename · d delete · type to search")
            yield Input(placeholder="search titles and messages", id="search")
            yield OptionList(*self._options(self.rows), id="conversations")
            yield Input(placeholder="new title, Enter to save", id="rename")

    def _options(self, rows: list[ConversationRow]) -> list[Option]:
        return [Option(literal(r.label()), id=str(r.id)) for r in rows]

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "search":
            return
        needle = event.value.lower()
        shown = [r for r in self.rows if needle in r.label().lower()]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(shown))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "rename" and (selected := self._selected()) is not None:
            self.dismiss(HistoryAction("rename", selected, event.value.strip()))
        elif event.input.id == "search":
            self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(HistoryAction("resume", int(event.option.id or 0)))

    def _selected(self) -> int | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        return int(options.get_option_at_index(options.highlighted).id or 0)

    def action_delete(self) -> None:
        """Deleting is asked for first (the dialog's default answer is Cancel)."""
        from .confirm import ConfirmDialog

        if (selected := self._selected()) is None:
            return

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.dismiss(HistoryAction("delete", selected))

        question = f"Delete conversation {selected} and everything in it? This cannot be undone."
        self.app.push_screen(ConfirmDialog(question, "Delete"), answered)

    def action_rename(self) -> None:
        if self._selected() is not None:
            self.add_class("-renaming")
            self.query_one("#rename", Input).focus()
