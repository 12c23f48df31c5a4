"""`foldchat import`: OpenAI message lists and ChatGPT exports in, stored exactly as given."""

import json
import sqlite3

from cli.in_process import foldchat_main


def run(*args, stdin="", env=None):
    """The command's exit status and output, run in this process (`run` of the tests that read what it stored)."""
    return foldchat_main(*args, stdin=stdin, env=env)


def environment(tmp_path):
    import os

    return {**os.environ, "FOLDCHAT_DATABASE": str(tmp_path / "db.sqlite"), "FOLDCHAT_CONFIG": os.devnull}


def test_openai_messages_are_stored_as_given(tmp_path):
    raw = [
        {"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "u"}}]},
        {"role": "assistant", "content": None, "reasoning_content": "r", "tool_calls": [
            {"id": "call_1__thought__x", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1__thought__x", "content": "ok", "extra_field": [1, 2]},
    ]  # fmt: skip
    done = run("import", "-", stdin=json.dumps(raw), env=environment(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        payloads = [json.loads(p) for (p,) in db.execute("SELECT payload FROM messages ORDER BY id")]
    assert payloads == raw


def test_chatgpt_export(tmp_path):
    export = [{"title": "Trip", "current_node": "b", "mapping": {
        "a": {"parent": None, "message": {"author": {"role": "user"}, "content": {"parts": ["Plan Rome"]}}},
        "b": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["Day 1: ..."]}}},
    }}]  # fmt: skip
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export))
    env = environment(tmp_path)
    done = run("import", str(path), env=env)
    assert done.returncode == 0, done.stderr
    shown = run("show", done.stdout.strip(), env=env).stdout
    assert "Plan Rome" in shown and "Day 1" in shown and "Trip" in shown


def test_bad_files_exit_2_with_one_line(tmp_path):
    env = environment(tmp_path)
    for stdin, message in (("nope", "not valid JSON"), ('{"a": 1}', "expected a JSON array"),
                           ('[{"role": "x", "content": ""}]', "unknown role")):  # fmt: skip
        done = run("import", "-", stdin=stdin, env=env)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
