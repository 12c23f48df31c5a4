"""The slash commands: one table (name → handler, argument hint, help) that dispatch, completion,
the command palette and /help all read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .screens.attaching import slash_attach
from .screens.chat_commands import SlashCommands

Handler = Callable[[SlashCommands, str], Awaitable[None]]


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


S = SlashCommands
COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("resummarize", "[--preview] [focus]", "Fold the history now (optionally telling the snapshot what to focus on); --preview shows the fold first: Enter applies it, Esc discards it", S.slash_resummarize),
    SlashCommand("unfold", "", "Undo the latest fold: the context is rebuilt without it", S.slash_unfold),
    SlashCommand("folds", "", "Open the fold inspector for the latest fold (the chain is listed there)", S.slash_folds),
    SlashCommand("fold", "auto|ask|off", "Automatic folds: auto (on), ask first (fold now / not now), or off (a send that would not fit still asks)", S.slash_fold),
    SlashCommand("attach", "PATH|GLOB", "Attach files to your next message (a folder: its files); @path in a message works too, Tab completes it", slash_attach),
    SlashCommand("pin", "", "Pin the selected message (or the last one): quoted verbatim in every snapshot", S.slash_pin),
    SlashCommand("model", "[name]", "Switch model (picker with window and price when no name is given)", S.slash_model),
    SlashCommand("context", "", "What the context is made of: system, snapshot, history, tools, input, reserve", S.slash_context),
    SlashCommand("new", "", "Start a new conversation", S.slash_new),
    SlashCommand("history", "", "Browse, search, resume, rename and delete conversations", S.slash_history),
    SlashCommand("system", "[text]", "Set the system prompt (or show it)", S.slash_system),
    SlashCommand("export", "[md|json]", "Write this conversation to a new file in Foldchat's exports folder (data dir); the path is shown", S.slash_export),
    SlashCommand("continue", "", "Ask for the rest of a reply that was cut at the output limit", S.slash_continue),
    SlashCommand("retry", "", "Regenerate the last reply (the old one stays in the transcript)", S.slash_retry),
    SlashCommand("help", "", "Every command and key", S.slash_help, needs_session=False),
    SlashCommand("quit", "", "Quit Foldchat", S.slash_quit, needs_session=False),
)  # fmt: skip
BY_NAME = {c.name: c for c in COMMANDS}


def parse(text: str) -> tuple[str, str] | None:
    """`("model", "gpt-4o")` for "/model gpt-4o"; None when `text` is not a slash command."""
    text = text.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, arg = text[1:].partition(" ")
    return name.lower(), arg.strip()


def completions(text: str) -> list[SlashCommand]:
    """Commands matching what is typed so far (only while the command word is being typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [c for c in COMMANDS if c.name.startswith(prefix)]
