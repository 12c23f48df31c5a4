"""The slash commands that match what is being typed, shown over the composer: Tab or Enter on one
completes the command word (the command table is the app's: tui/slash, handed in by the screen)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from ..literal import literal


class Command(Protocol):
    """A slash command as the suggestions show it (tui/slash: `SlashCommand`)."""

    @property
    def name(self) -> str: ...
    @property
    def usage(self) -> str: ...
    @property
    def help(self) -> str: ...


class CommandSuggestions(OptionList):
    DEFAULT_CSS = "CommandSuggestions { display: none; }"

    def __init__(self, commands: Callable[[str], Sequence[Command]]) -> None:
        super().__init__(id="suggestions")
        self.commands = commands

    def offer(self, typed: TextArea) -> None:
        """The commands matching the first line of `typed` while it is one line (most keystrokes match none)."""
        matches = self.commands(typed.document.get_line(0)) if typed.document.line_count == 1 else []
        if matches or self.option_count:  # nothing to suggest and nothing shown: nothing to redo
            self.clear_options()
            self.add_options([Option(literal(f"{c.usage:<24} {c.help}"), id=c.name) for c in matches])
        self.display = bool(matches)
        if matches:
            self.highlighted = 0

    def highlighted_name(self) -> str | None:
        """The command a Tab completes: the highlighted one while suggestions show."""
        if not self.display or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted or 0).id

    def close(self) -> bool:
        """Hidden; True when they were showing (Esc closed them)."""
        shown = bool(self.display)
        self.display = False
        return shown
