"""The welcome panel a new, empty conversation opens on: which model answers (what to expect of the embedded
one, and how to use a provider instead), the three keys that matter and what the gauge says. The first
thing typed in the composer puts it away; the transcript decides when it shows (widgets/transcript.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.message import Message as TextualMessage
from textual.widgets import Static, TextArea

from ..literal import literal
from .composer import Composer

if TYPE_CHECKING:  # types only: the engine's config loads pydantic, kept off the first frame
    from foldchat.engine import LocalModelSettings, ModelTarget
    from textual.message import Message

# what the embedded model is, said plainly: people judge Foldchat by its first replies
LOCAL_MODELS = {
    "smollm2": "SmolLM2-135M-Instruct, on this computer.\n135M parameters: fluent, often wrong on facts, "
    "and it may drift into another language.",
    "gemma": "Gemma 3 270M, on this computer.\nA base model: it continues text more than it answers, and "
    "is often wrong on facts.",
}
OWN_LOCAL_MODEL = "the GGUF of [local] model_path, on this computer."
PROVIDER_INSTEAD = (
    "For real work, set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GEMINI_API_KEY, MISTRAL_API_KEY) before "
    "starting Foldchat, or pick another model with /model."
)
# the chat screen's bindings (screens/chat.py), the composer's Enter and the README's key table say the same
KEYS = (
    ("Enter", "send"),
    ("F3, then Enter", "the fold inspector: what a fold kept (/folds opens the latest)"),
    ("Ctrl+T or F2", "history: your conversations, searched, resumed"),
)
GAUGE = (
    "The gauge at the bottom: tokens in context / the window, the fold trigger │ (fold at), the reserve "
    "kept for the reply ▒, turns left before the next fold, and the cost so far."
)
KEY_COLUMN = 16


def model_lines(target: ModelTarget | None, local: LocalModelSettings | None) -> Content:
    """Which model answers (its name as configured, shown literally); for the embedded model, what to
    expect of it and how to use a provider instead."""
    if target is None:  # the session opens in a worker: the panel shows before the model is known
        return Content.assemble(("Model: ", "bold"), ("starting…", "dim"))
    named = Content.assemble(("Model: ", "bold"), literal(target.name))
    if not target.backend.on_this_machine:
        return named
    said = OWN_LOCAL_MODEL if local is None or local.model_path is not None else LOCAL_MODELS[local.model]
    return Content.assemble(named, " — ", said, "\n", PROVIDER_INSTEAD)


def welcome_text(target: ModelTarget | None, local: LocalModelSettings | None) -> Content:
    keys = [Content.assemble((key.ljust(KEY_COLUMN), "bold"), what) for key, what in KEYS]
    return Content("\n").join(
        [model_lines(target, local), Content(""), *keys, Content(""), Content(GAUGE), Content(""),
         Content.assemble(("Type to begin; this panel goes away. F1: every key and command.", "dim"))]
    )  # fmt: skip


class Welcome(Static):
    """Not focusable: the composer keeps the focus, and what is typed goes there."""

    DEFAULT_CSS = """
    Welcome { height: auto; max-width: 100; margin: 1 0; padding: 0 1; border: round $primary;
              border-title-color: $text-muted; }
    """

    class Dismissed(TextualMessage):
        """Something was typed in the composer: the panel goes, for this conversation."""

    def __init__(self, target: ModelTarget | None = None, local: LocalModelSettings | None = None) -> None:
        super().__init__(welcome_text(target, local), id="welcome")
        self.border_title = "New conversation"
        self.composer: Composer | None = None

    def show_model(self, target: ModelTarget, local: LocalModelSettings) -> None:
        self.update(welcome_text(target, local))

    def on_mount(self) -> None:
        composers = self.screen.query(Composer)
        if not composers or composers.first().text:  # typed while the conversation opened (or nowhere to type)
            self.post_message(self.Dismissed())
            return
        self.composer = composer = composers.first()
        # the composer's own messages: typing reaches it without passing the screen's key handlers (tui/app.py)
        composer.message_signal.subscribe(self, self._heard, immediate=True)

    def _heard(self, message: Message) -> None:
        if isinstance(message, TextArea.Changed) and message.text_area.text:  # a clear (a switch) is no typing
            self._stop_listening()
            self.post_message(self.Dismissed())

    def _stop_listening(self) -> None:
        if self.composer is not None:
            self.composer.message_signal.unsubscribe(self)
            self.composer = None

    def on_unmount(self) -> None:
        self._stop_listening()
