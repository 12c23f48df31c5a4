"""Browse conversations: search, resume (Enter), rename (r), delete (d).

Search is full-text over titles and message text (the engine's FTS5 index, through the `search`
function the chat screen passes in, run off the UI thread); each result shows the line that matched, and
resuming it opens the conversation at that message, selected (a title match, or browsing, opens at the end).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from foldchat.engine import FoldchatError, off_loop
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from ..literal import literal


@dataclass(frozen=True)
class ConversationRow:
    id: int
    title: str
    model: str | None
    updated_at: float
    messages: int
    excerpt: str = ""
    """The line of a message that matched the search ("" when browsing or when the title matched)."""
    message_id: int | None = None
    """The message that line is from: the conversation opens at it, selected."""

    def label(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.updated_at))
        line = f"{self.id:>5}  {when}  {self.messages:>5} msgs  {self.title or 'untitled'}"
        return f"{line}\n       › {self.excerpt}" if self.excerpt else line


Search = Callable[[str], list[ConversationRow]]


@dataclass(frozen=True)
class HistoryAction:
    action: Literal["resume", "rename", "delete"]
    conversation_id: int
    title: str = ""
    message_id: int | None = None
    """For a resume from a search: the message that matched, where the conversation opens."""


class HistoryScreen(ModalScreen[HistoryAction | None]):
    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical { width: 100; max-width: 95%; height: 80%; border: thick $primary;
                               background: $surface; padding: 0 1; }
    /* a row a line (a long title or matched line is cut with an ellipsis): wrapped, its second line started
       at the left edge, under the id column */
    HistoryScreen OptionList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    HistoryScreen #rename { display: none; }
    HistoryScreen.-renaming #rename { display: block; }
    """
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("d", "delete", "Delete"),
        Binding("r", "rename", "Rename"),
        # from the search box (which takes no ↑/↓ itself): the highlight moves, typing goes on, Enter resumes it
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, rows: list[ConversationRow], search: Search) -> None:
        super().__init__()
        self.rows = rows
        self.search = search
        self.searching: Worker[None] | None = None
        self.matched: dict[int, int | None] = {}
        """Conversation id -> the message its search result shows (what a resume opens at)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Conversations · Enter resume · r rename · d delete · type to search")
            yield Input(placeholder="search titles and messages", id="search")
            yield OptionList(*self._options(self.rows), id="conversations")
            yield Input(placeholder="new title, Enter to save", id="rename")

    def _options(self, rows: list[ConversationRow]) -> list[Option]:
        self.matched = {r.id: r.message_id for r in rows}
        return [Option(literal(r.label()), id=str(r.id)) for r in rows]

    def _resume(self, conversation_id: int) -> None:
        self.dismiss(HistoryAction("resume", conversation_id, message_id=self.matched.get(conversation_id)))

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "search":
            return
        self.searching = self.run_search(event.value.strip())

    @work(exclusive=True, group="search", exit_on_error=False)
    async def run_search(self, text: str) -> None:
        try:
            shown = await off_loop(self.search, text) if text else self.rows
        except FoldchatError as error:  # a search the engine refuses (too long): say why, list nothing
            self.notify(str(error), title="Search", severity="warning")
            shown = []
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(shown))
        options.highlighted = 0 if shown else None  # Enter from the search box resumes the best match

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "rename" and (selected := self._selected()) is not None:
            self.dismiss(HistoryAction("rename", selected, event.value.strip()))
        elif event.input.id == "search":
            if self.searching is not None:  # Enter right after typing: the hit for what was typed
                with contextlib.suppress(WorkerFailed, WorkerCancelled):
                    await self.searching.wait()
            if (best := self._selected()) is not None:
                self._resume(best)  # Enter resumes the best match at once
            else:
                self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._resume(int(event.option.id or 0))

    def _selected(self) -> int | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        return int(options.get_option_at_index(options.highlighted).id or 0)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

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
