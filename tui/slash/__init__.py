"""The slash commands: one table (name → handler, argument hint, help) that dispatch, completion,
the command palette and /help (`help_markdown`, beside the table) all read. Each handler is a plain
function of the chat screen, as a command sees it (`ChatHost`, tui/host.py), and the argument, in the
module of its topic."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conversation.attaching import slash_attach
from ..conversation.widget import parse
from . import basics, conversations, folds, model, pins

if TYPE_CHECKING:
    from ..host import ChatHost

Handler = Callable[["ChatHost", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: str
    help: str
    handler: Handler
    needs_session: bool = True
    """False for commands that work while the conversation is still opening (/help, /quit)."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("resummarize", "[--preview] [focus]", "Fold the history now (optionally telling the snapshot what to focus on); --preview shows the fold first: Enter applies it, Esc discards it", folds.resummarize),
    SlashCommand("unfold", "", "Undo the latest fold: the context is rebuilt without it", folds.unfold),
    SlashCommand("folds", "", "Open the fold inspector for the latest fold (the chain is listed there)", folds.folds),
    SlashCommand("fold", "auto|ask|off", "Automatic folds: auto (on), ask first (fold now / not now), or off (a send that would not fit still asks)", folds.fold_mode),
    SlashCommand("recall", "on|off", "Recall at every send: the words of folded messages a new message is about go into its request (shown under your message)", folds.recall_mode),
    SlashCommand("attach", "PATH|GLOB", "Attach files to your next message (a folder: its files); @path in a message works too, Tab completes it", slash_attach),
    SlashCommand("pin", "", "Pin the selected message (or the last one): quoted verbatim in every snapshot", pins.pin),
    SlashCommand("model", "[name]", "Switch model (picker with window and price when no name is given)", model.model),
    SlashCommand("context", "", "What the context is made of: system, snapshot, history, tools, input, reserve", model.context),
    SlashCommand("new", "", "Start a new conversation", conversations.new),
    SlashCommand("history", "", "Browse, search, resume, rename and delete conversations", conversations.history),
    SlashCommand("system", "[text]", "Set the system prompt (or show it)", conversations.system),
    SlashCommand("export", "[md|json]", "Write this conversation to a new file in Foldchat's exports folder (data dir); the path is shown", conversations.export),
    SlashCommand("continue", "", "Ask for the rest of a reply that was cut at the output limit", basics.continue_reply),
    SlashCommand("retry", "", "Regenerate the last reply (the old one stays in the transcript)", basics.retry),
    SlashCommand("help", "", "Every command and key", basics.help_screen, needs_session=False),
    SlashCommand("quit", "", "Quit Foldchat", basics.quit_app, needs_session=False),
)  # fmt: skip
BY_NAME = {c.name: c for c in COMMANDS}
__all__ = ["BY_NAME", "COMMANDS", "SlashCommand", "completions", "help_markdown", "parse"]  # parse: the composer's


def completions(text: str) -> list[SlashCommand]:
    """Commands matching what is typed so far (only while the command word is being typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [c for c in COMMANDS if c.name.startswith(prefix)]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def help_markdown() -> str:
    # a "|" inside a cell (`/export [md|json]`) would end the cell: escaped, it stays in the text
    commands = "\n".join(f"| `{_cell(c.usage)}` | {c.help} |" for c in COMMANDS)
    return f"""## Foldchat

| command | what it does |
|---|---|
{commands}

| key | where | what it does |
|---|---|---|
| Enter | composer | send |
| Ctrl+J | composer | new line (Shift+Enter too, where the terminal reports it) |
| Ctrl+L | composer | clear it (Ctrl+Z brings the text back; F7 selects all; Ctrl+L elsewhere focuses it) |
| Tab | composer | complete a /command or an @path; else select the latest message |
| Esc | chat | stop the reply (the partial reply is kept, marked) |
| Ctrl+R | chat | regenerate the last reply |
| Ctrl+O | chat | switch model (recent models and every provider whose key is set) |
| Ctrl+T or F2 | chat | conversations: search what was said, resume (a search result opens at the message that matched), rename, delete (also /history) |
| F3 / Shift+F3 | chat | jump to the previous / next fold marker (Enter opens the fold inspector) |
| ↑ | empty composer | edit the last prompt; Enter resends it (later messages are kept, replaced), Esc cancels |
| Ctrl+P | anywhere | command palette (every /command is there) |
| Tab / Shift+Tab | chat | move between messages, fold markers and the composer |
| ↑ / ↓ | a selected message | select the one before / after it (↓ past the last: the composer) |
| PageUp / PageDown | composer | page through the conversation (the composer's own when it holds more than it shows) |
| Enter, then p / c / y | a selected message | pin / copy it / copy its last code block (OSC 52) |
| Enter, then e | a selected prompt | edit and resend it |
| any letter | a selected message | goes to the composer (a selected message takes no bare letters) |
| Enter | a fold marker | open the fold inspector (Ctrl+E edit, Ctrl+R re-fold, Ctrl+T preview, Ctrl+U undo; typing goes on in the composer) |
| F1 | anywhere | this help |
| Ctrl+Q | anywhere | quit |
"""
