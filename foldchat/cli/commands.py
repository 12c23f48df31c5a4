"""The subcommands, as `foldchat`'s parser lists them: name, help line, and where their arguments are declared.

Only the help lines are needed to list the commands (`foldchat --help`) and to know a name is one; a
command's module (its arguments, its description and how it runs) is imported when that command is given,
so `foldchat list` does not load what `ask` or `compress` read and check.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    name: str
    help: str
    module: str
    """Under foldchat.cli: the module with `declare`, which adds the command's arguments and its `run` default."""
    declare: str = "add_parser"


COMMANDS = (
    Command("ask", "ask a question from the shell and stream the reply", "ask_cmd"),
    Command("compress", "fold a JSON array of chat messages (OpenAI format) and print the result", "compress_cmd"),
    Command("list", "list conversations, most recent first", "conversations_cmd", "add_list_parser"),
    Command("show", "print a conversation's whole transcript, folds marked", "conversations_cmd", "add_show_parser"),
    Command(
        "export",
        "write a conversation as Markdown or JSON to stdout or a new file",
        "conversations_cmd",
        "add_export_parser",
    ),
    Command(
        "import",
        "import a JSON array of OpenAI messages or a ChatGPT export; prints the new conversation id(s)",
        "import_cmd",
    ),
    Command("models", "list model aliases with window and price", "models_cmd"),
)
BY_NAME = {command.name: command for command in COMMANDS}
