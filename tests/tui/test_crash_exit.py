"""A crash of the app never looks like a clean exit: status 1, one line naming the log, traceback logged."""

from __future__ import annotations

import argparse
import os
import stat

from foldchat.tui.app import FoldchatApp, run_app


def test_an_unhandled_error_exits_1_with_one_line_and_a_private_log(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "db.sqlite"))
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(tmp_path / "none.toml"))

    def broken_mount(self):
        raise RuntimeError("boom \x1b]0;title\x07 [/quote]")

    monkeypatch.setattr(FoldchatApp, "on_mount", broken_mount, raising=False)
    status = run_app(argparse.Namespace(config=None, conversation=None, new=True, model=None), headless=True)
    assert status == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "RuntimeError" in lines[0] and "[/quote]" in lines[0] and "\x1b" not in lines[0]
    log = tmp_path / "state" / "foldchat" / "log" / "crash.log"
    assert str(log) in lines[0]
    assert "Traceback" in log.read_text() and "broken_mount" in log.read_text()
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(log.parent).st_mode) == 0o700
