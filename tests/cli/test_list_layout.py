"""`foldchat list` at a terminal: a header, and each row cut to the terminal's width (at 80 columns a long
title wrapped to the left edge, under the id column); into a pipe, the rows exactly as scripts read them."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from cli.test_import_cli import environment, run
from foldchat.cli.listing import Row, lines

TITLE = "Plan the Lisbon trip: hotels, trams, the fado night and every invoice that is due in June"
ROWS = [Row(1, "2026-11-29 07:25", 6, "local", TITLE), Row(12, "2026-11-28 18:02", 140, "gpt-4o", "short", "› x")]


def test_at_a_terminal_a_header_and_every_line_within_the_width():
    shown = lines(ROWS, 80)
    assert shown[0].split() == ["id", "updated", "msgs", "model", "title"]
    assert all(len(line) <= 80 for line in shown)
    assert shown[1].endswith("…") and shown[1].split()[:5] == ["1", "2026-11-29", "07:25", "6", "local"]
    assert shown[2].split()[:6] == ["12", "2026-11-28", "18:02", "140", "gpt-4o", "short"]


def test_into_a_pipe_the_rows_are_whole_and_as_they_were():
    assert lines(ROWS, None) == [
        f"    1  2026-11-29 07:25      6 msgs  {'local':<24}  {TITLE}",
        f"   12  2026-11-28 18:02    140 msgs  {'gpt-4o':<24}  short",
        "       › › x",
    ]


def test_the_command_at_an_80_column_terminal(tmp_path):
    env = environment(tmp_path)
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": TITLE}]), env=env).returncode == 0
    controller, terminal = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "foldchat", "list"], stdout=terminal, stderr=subprocess.PIPE,
        env={**env, "COLUMNS": "80", "LINES": "24"}, timeout=60,
    )  # fmt: skip
    os.close(terminal)
    shown = os.read(controller, 65536).decode().splitlines()
    os.close(controller)
    assert done.returncode == 0, done.stderr
    assert shown[0].split() == ["id", "updated", "msgs", "model", "title"]
    assert len(shown) == 2 and all(len(line) <= 80 for line in shown) and shown[1].endswith("…")
