"""The one-line question `fold.auto = "ask"` puts where the gauge is: fold now, or not now."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from ..literal import literal


class FoldConsent(ModalScreen[bool]):
    """Dismissed with True (fold now: y or Enter) or False (not now: n or Esc)."""

    DEFAULT_CSS = """
    FoldConsent { align: left bottom; background: $background 0%; }
    FoldConsent > Static { width: 100%; height: 1; margin: 0 0 1 0; padding: 0 1; background: $warning;
                           color: $text; text-style: bold; }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Fold now"),
        Binding("n,escape", "answer(False)", "Not now"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(literal(f"{self.question}   [y] fold now · [n] not now"), id="question")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
