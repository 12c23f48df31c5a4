"""`foldchat list --search`: full-text over titles and messages, the matching line shown."""

import json

from cli.test_import_cli import environment, run


def test_list_search_finds_message_text_and_shows_the_line(tmp_path):
    env = environment(tmp_path)
    raw = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "first line\nthe Lisbon ferry leaves at 9"},
    ]
    assert run("import", "-", stdin=json.dumps(raw), env=env).returncode == 0
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "other"}]), env=env).returncode == 0
    done = run("list", "--search", "ferry", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[0] == "1"
    assert lines[1].strip() == "› the Lisbon ferry leaves at 9"
    missing = run("list", "--search", "tram", env=env)
    assert missing.returncode == 0 and missing.stdout == "" and "no conversation matches" in missing.stderr
