"""Under the title while a fold runs: what it is doing and how far along it is."""

from __future__ import annotations

from foldchat.engine import FoldEvent, FoldProgress, FoldStarted
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, ProgressBar


class FoldEventPosted(Message):
    """A fold's progress event from the engine (posted from a worker thread, or by a turn)."""

    def __init__(self, event: FoldEvent) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:  # only the latest progress is worth a frame
        progress = isinstance(self.event, FoldProgress)
        return progress and isinstance(message, FoldEventPosted) and isinstance(message.event, FoldProgress)


class FoldProgressLine(Horizontal):
    """Shown while `active` (bound to the chat screen's `folding`); `show` paints one fold event."""

    active: reactive[bool] = reactive(False, layout=False)

    def compose(self) -> ComposeResult:
        yield Label("folding…", id="fold-step", markup=False)
        yield ProgressBar(total=100, show_eta=False, id="fold-bar")

    def watch_active(self, active: bool) -> None:
        self.set_class(active, "-active")

    def show(self, event: FoldEvent) -> None:
        step = self.query_one("#fold-step", Label)
        bar = self.query_one("#fold-bar", ProgressBar)
        if isinstance(event, FoldStarted):
            step.update(f"folding {event.messages} messages ({event.tokens:,} tokens)…")
            bar.update(total=100, progress=5)
        elif isinstance(event, FoldProgress):
            step.update(f"{event.step} {event.detail}" if event.detail else f"{event.step} {event.done}/{event.total}")
            if event.total:
                bar.update(total=event.total, progress=event.done)
