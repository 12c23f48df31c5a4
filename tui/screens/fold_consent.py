"""The question `fold.auto = "ask"` puts before an automatic fold: fold now, or not now.

It is a dialog in the middle of the screen that fits 80 columns (the question wraps), not a line at the
bottom that a wide gauge cuts off. It comes up just after Enter, exactly when people type their next
message, so it answers only to deliberate keys: Ctrl+F (or a focused "Fold now" button and Enter) folds,
Esc (or "Not now") declines. Every printable key typed meanwhile goes to the composer behind it, so
"yesterday…" is neither a yes nor lost.
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..literal import literal


class FoldConsent(ModalScreen[bool]):
    """Dismissed with True (fold now) or False (not now)."""

    DEFAULT_CSS = """
    FoldConsent { align: center middle; }
    FoldConsent > Vertical { width: 76; max-width: 100%; height: auto; border: thick $warning;
                             background: $surface; padding: 0 1; }
    FoldConsent #question { width: 100%; height: auto; margin: 1 0; }
    FoldConsent Horizontal { height: auto; align: right middle; }
    FoldConsent Button { margin: 0 0 0 2; }
    """
    AUTO_FOCUS = ""  # nothing focused: an Enter (or a space) typed at the end of a message answers nothing
    BINDINGS = [
        Binding("ctrl+f", "answer(True)", "Fold now"),
        Binding("escape", "answer(False)", "Not now"),
    ]

    def __init__(self, question: str, forward: object | None = None) -> None:
        super().__init__()
        self.question = question
        self.forward = forward
        """Where printable keys go while the question is up (the chat's composer): `insert(text)`."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Fold the conversation?"
            yield Static(literal(self.question), id="question")
            yield Static(literal("Ctrl+F folds now · Esc sends without folding · typing goes on in the composer"))
            with Horizontal():
                yield Button("Fold now", id="fold", variant="warning")
                yield Button("Not now", id="not-now")

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and self.forward is not None:
            event.stop()
            event.prevent_default()
            self.forward.insert(event.character)  # type: ignore[attr-defined]

    @on(Button.Pressed, "#fold")
    def fold_now(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#not-now")
    def not_now(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
