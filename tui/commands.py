"""The slash commands: one table used by completion, the command palette, /help and dispatch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: str
    help: str

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("resummarize", "[focus]", "Fold the history now (optionally telling the snapshot what to focus on)"),
    SlashCommand("unfold", "", "Undo the latest fold: the context is rebuilt without it"),
    SlashCommand("folds", "", "Open the fold inspector for the latest fold (the chain is listed there)"),
    SlashCommand("pin", "", "Pin the selected message (or the last one): quoted verbatim in every snapshot"),
    SlashCommand("model", "[name]", "Switch model (picker with window and price when no name is given)"),
    SlashCommand("context", "", "What the context is made of: system, snapshot, history, tools, input, reserve"),
    SlashCommand("new", "", "Start a new conversation"),
    SlashCommand("history", "", "Browse, search, resume, rename and delete conversations"),
    SlashCommand("system", "[text]", "Set the system prompt (or show it)"),
    SlashCommand("export", "[md|json]", "Write this conversation to a file in the current directory"),
    SlashCommand("retry", "", "Regenerate the last reply (the old one stays in the transcript)"),
    SlashCommand("help", "", "Every command and key"),
    SlashCommand("quit", "", "Quit Foldchat"),
)
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
