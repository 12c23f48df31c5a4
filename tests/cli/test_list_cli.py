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


def test_a_search_longer_than_the_limit_is_refused_in_one_line_that_does_not_blame_the_database(tmp_path):
    env = environment(tmp_path)
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "hello"}]), env=env).returncode == 0
    done = run("list", "--search", "ferry " * 10_000, env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "search" in done.stderr and "1,000 characters" in done.stderr
    assert "database" not in done.stderr and "internal error" not in done.stderr


def test_list_search_finds_words_that_only_an_attachment_holds(home, fake, tmp_path):
    from cli.in_process import foldchat_main as foldchat

    notes = tmp_path / "notes.md"
    notes.write_text("# Trip\n\nThe funicular to the castle closes at 18:00 on Sundays.\n")
    assert foldchat("ask", "-f", str(notes), "summarise my notes", "--model", "fake").returncode == 0
    assert foldchat("ask", "a second conversation", "--new", "--model", "fake").returncode == 0
    done = foldchat("list", "--search", "funicular castle")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[0] == "1", done.stdout
    assert lines[1].strip() == "› The funicular to the castle closes at 18:00 on Sundays."
