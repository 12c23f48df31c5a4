"""Escape sequences from a model or a stored message never reach the terminal raw (CLI side).

A reply or title holding OSC 52 (clipboard), OSC 0 (window title), CSI 2J (clear screen), BEL or C1
controls is printed with visible stand-ins by `ask`, `list`, `show`, `export --format md` and error
lines; `export --format json` keeps the exact strings (escaped the JSON way)."""

from __future__ import annotations

import json
import unicodedata

from runtime.conftest import foldchat

HOSTILE_PROMPT = "title \x1b]0;pwned\x07 clip \x1b]52;c;ZWNobyBoaQ==\x07 [/quote] end"
HOSTILE_REPLY = "sure \x1b[2J cleared \x9b31m red \x9d52;c;eA==\x9c done"


def raw_controls(text: str) -> list[str]:
    return [ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\n\t"]


def test_ask_list_show_and_markdown_export_make_escapes_visible(home, fake):
    fake.reply = HOSTILE_REPLY
    done = foldchat("ask", HOSTILE_PROMPT, "--model", "fake")
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout) == []
    assert "␛[2J cleared <9b>31m red" in done.stdout

    for command in (["list"], ["show", "1"], ["export", "1", "--format", "md"]):
        out = foldchat(*command)
        assert out.returncode == 0, out.stderr
        assert raw_controls(out.stdout) == [], command
    shown = foldchat("show", "1").stdout
    assert "␛]52;c;ZWNobyBoaQ==␇" in shown and "[/quote]" in shown and "␛[2J" in shown


def test_json_export_keeps_the_exact_text(home, fake):
    fake.reply = HOSTILE_REPLY
    assert foldchat("ask", HOSTILE_PROMPT, "--model", "fake").returncode == 0
    out = foldchat("export", "1", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert raw_controls(out.stdout) == []
    texts = [m["message"]["content"] for m in json.loads(out.stdout)["messages"]]
    assert texts == [HOSTILE_PROMPT, HOSTILE_REPLY]


def test_error_lines_make_escapes_visible(home, monkeypatch, capsys):
    from foldchat.engine import FoldchatError

    from foldchat.cli import conversations_cmd, main

    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))

    def provider_says(args):
        raise FoldchatError("provider said: \x1b]52;c;eA==\x07 \x1b[2J [/INST]")

    def bug(args):
        raise RuntimeError("\x9b2J oops")

    for failure, status in ((provider_says, 1), (bug, 1)):
        monkeypatch.setattr(conversations_cmd, "run_list", failure)
        assert main.main(["list"]) == status
        err = capsys.readouterr().err
        assert raw_controls(err) == [] and len(err.strip().splitlines()) == 1, err
    assert "<9b>2J oops" in err
