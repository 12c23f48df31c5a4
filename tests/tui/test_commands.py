"""commands.py: the one slash-command table that dispatch, completion, the palette and /help read."""

import inspect

from foldchat.tui.commands import BY_NAME, COMMANDS, completions, parse
from foldchat.tui.presenters import help_markdown
from foldchat.tui.screens.chat_commands import SlashCommands


def test_every_command_has_a_coroutine_handler_on_the_screen_and_a_unique_name():
    assert len(BY_NAME) == len(COMMANDS)
    for command in COMMANDS:
        assert inspect.iscoroutinefunction(command.handler), command.name
        # a method of the screen's commands, or a plain function of (screen, argument) in its own module
        method = getattr(SlashCommands, command.handler.__name__, None) is command.handler
        assert method or list(inspect.signature(command.handler).parameters) == ["screen", "arg"], command.name
    assert {c.name for c in COMMANDS if not c.needs_session} == {"help", "quit"}


def test_completion_and_help_come_from_the_table():
    assert [c.name for c in completions("/re")] == ["resummarize", "retry"]
    assert completions("/model gpt") == []
    text = help_markdown()
    assert all(f"`{c.usage}`".replace("|", "\\|") in text for c in COMMANDS)  # a table cell escapes "|"


def test_parse_reads_the_name_and_argument():
    assert parse("/Model gpt-4o ") == ("model", "gpt-4o")
    assert parse("//not a command") is None
    assert parse("hello") is None
