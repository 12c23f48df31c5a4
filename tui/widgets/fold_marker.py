"""The inline marker where a fold happened: what it did, in one line; Enter or a click opens it."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.widgets import Static

from .stepping import STEP_BINDINGS, step_focus


def marker_text(folded: int, before: int, after: int, summarizer: str, pinned: tuple[int, int]) -> str:
    text = f"⟨ Folded {folded} messages · {before:,} → {after:,} tokens · {summarizer}"
    if pinned[1]:
        text += f" · pinned kept {pinned[0]}/{pinned[1]}"
    return text + " ⟩  (Enter to inspect)"


class FoldMarker(Static, can_focus=True):
    DEFAULT_CSS = """
    FoldMarker { height: auto; margin: 0 0 1 0; padding: 0 1; color: $accent; text-style: bold;
                 border-top: dashed $accent; border-bottom: dashed $accent; }
    FoldMarker:focus { background: $boost; }
    """
    BINDINGS = [Binding("enter", "inspect", "Inspect fold"), *STEP_BINDINGS]

    class Selected(TextualMessage):
        def __init__(self, fold_id: int) -> None:
            super().__init__()
            self.fold_id = fold_id

    def __init__(self, fold_id: int, text: str) -> None:
        super().__init__(text, markup=False)
        self.fold_id = fold_id

    def action_inspect(self) -> None:
        self.post_message(self.Selected(self.fold_id))

    def on_click(self) -> None:
        self.action_inspect()

    def action_step(self, step: int) -> None:
        step_focus(self, step)
