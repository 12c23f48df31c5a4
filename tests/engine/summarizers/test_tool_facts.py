"""tool_facts.py: one line per tool call, by kind of tool."""

import json

from foldchat.engine import Message, ToolCall
from foldchat.engine.summarizers.tool_facts import describe, parse_arguments


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=json.dumps(arguments))


def test_arguments_that_are_not_a_json_object_are_kept_raw():
    assert parse_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_arguments("not json") == {"_raw": "not json"}
    assert parse_arguments("[1, 2]") == {"_raw": [1, 2]}
    assert parse_arguments("") == {}


def test_a_failing_shell_command_names_its_exit_code_and_error():
    fact = describe(call("bash", command="pytest -q"), Message.tool("c1", "E   AssertionError: 2 != 3\nexit code 1"))
    assert fact.kind == "shell"
    assert "pytest -q" in fact.action and "exit 1" in fact.action
    assert fact.error is not None and "AssertionError" in fact.error
    assert fact.done is None


def test_a_successful_shell_command_is_a_done_step():
    fact = describe(call("run_shell_command", command="make build"), Message.tool("c1", "ok\nexit code 0"))
    assert fact.error is None and fact.done is not None and "make build" in fact.done


def test_reads_searches_and_edits_each_get_their_line():
    read = describe(call("read_file", path="src/app.py"), Message.tool("c1", "a\nb\nc"))
    assert (read.kind, read.action) == ("read", "read src/app.py (3 lines)")
    search = describe(
        call("grep", pattern="TODO", path="src"), Message.tool("c1", "src/a.py:1: TODO\nsrc/b.py:9: TODO")
    )
    assert search.kind == "search" and "2 matching lines" in search.action and "src/a.py" in search.action
    edit = describe(call("edit_file", path="a.py", old_str="x = 1", new_str="x = 2"), Message.tool("c1", "done"))
    assert edit.kind == "edit" and "x = 1" in edit.action and edit.done == "edited a.py"


def test_an_unknown_tool_without_a_result_says_so():
    fact = describe(call("weather", city="Oslo"), None)
    assert fact.kind == "tool" and "Oslo" in fact.action and "no output" in fact.action
