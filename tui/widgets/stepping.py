"""↑/↓ on a selected message or fold marker: the one before or after it is selected (Tab and Shift+Tab do
the same across the whole screen). ↓ on the last goes on to what follows the transcript (the composer); ↑ on
the first stays. The transcript scrolls to what is selected."""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget

STEP_BINDINGS = [
    Binding("up", "step(-1)", "Previous", show=False),
    Binding("down", "step(1)", "Next", show=False),
]


def step_focus(widget: Widget, step: int) -> None:
    """Select the transcript's item `step` away from `widget` (one of the transcript's own children)."""
    chain = widget.screen.focus_chain
    items = [w for w in chain if w.parent is widget.parent]  # the messages and fold markers mounted
    at = items.index(widget) + step
    if 0 <= at < len(items):
        items[at].focus()
    elif step > 0:  # past the last: what the focus chain has after the transcript
        after = chain[chain.index(items[-1]) + 1 :]
        if after:
            after[0].focus()
