"""The question `fold.auto = "ask"` puts before an automatic fold: fold now, or not now.

It is a dialog in the middle of the screen that fits 80 columns (the question wraps), not a line at the
bottom that a wide gauge cuts off. It comes up just after Enter, exactly when people type their next
message, so it answers only to deliberate keys: Ctrl+F (or a focused "Fold now" button and Enter) folds,
Esc (or "Not now") declines, Tab reaches the buttons. Every other key typed meanwhile, and a paste, goes to
the composer behind it as if it had focus, so "yesterday…" is neither a yes nor lost, Backspace mends it,
and Enter does what it does while a reply is on its way: the message stays in the composer, said so (the
question is part of the turn), and goes with the next Enter once the reply is in.
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..literal import literal
from ..widgets.composer import Composer


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

    OWN_KEYS = ("ctrl+f", "escape", "tab", "shift+tab")
    PRESS_KEYS = ("enter", "space")  # a focused button's

    def __init__(self, question: str, forward: Composer | None = None) -> None:
        super().__init__()
        self.question = question
        self.forward = forward
        """Where the other keys go while the question is up: the chat's composer."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Fold the conversation?"
            yield Static(literal(self.question), id="question")
            yield Static(literal("Ctrl+F folds now · Esc sends without folding · typing goes on in the composer"))
            with Horizontal():
                yield Button("Fold now", id="fold", variant="warning")
                yield Button("Not now", id="not-now")

    async def on_key(self, event: events.Key) -> None:
        if self.forward is None or event.key in self.OWN_KEYS:
            return
        if self.focused is not None and event.key in self.PRESS_KEYS:
            return
        event.stop()
        event.prevent_default()
        await self.forward.take_key(event)

    async def on_paste(self, event: events.Paste) -> None:
        if self.forward is not None:
            event.stop()
            await self.forward.take_paste(event.text)

    @on(Button.Pressed, "#fold")
    def fold_now(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#not-now")
    def not_now(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
