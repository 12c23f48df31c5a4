"""tui/slash/: the one slash-command table that dispatch, completion, the palette and /help read."""

import inspect

from foldchat.tui.slash import BY_NAME, COMMANDS, completions, help_markdown, parse


def test_every_command_has_a_coroutine_handler_of_the_screen_and_its_argument_and_a_unique_name():
    assert len(BY_NAME) == len(COMMANDS)
    for command in COMMANDS:
        assert inspect.iscoroutinefunction(command.handler), command.name
        # a plain function of (screen, argument) in the module of its topic: no mixin, no method
        assert inspect.isfunction(command.handler), command.name
        parameters = list(inspect.signature(command.handler).parameters)
        assert len(parameters) == 2 and parameters[0] == "screen", command.name
    assert {c.name for c in COMMANDS if not c.needs_session} == {"help", "quit"}


def test_completion_and_help_come_from_the_table():
    assert [c.name for c in completions("/re")] == ["resummarize", "recall", "retry"]
    assert completions("/model gpt") == []
    text = help_markdown()
    assert all(f"`{c.usage}`".replace("|", "\\|") in text for c in COMMANDS)  # a table cell escapes "|"


def test_parse_reads_the_name_and_argument():
    assert parse("/Model gpt-4o ") == ("model", "gpt-4o")
    assert parse("//not a command") is None
    assert parse("hello") is None
