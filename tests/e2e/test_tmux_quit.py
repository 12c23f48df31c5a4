"""End to end in a real terminal: Ctrl+Q during a fold quits at once. The summarizer's answer is held by
the loopback server; the app must be gone while it is still held, make none of the fold's later calls,
and keep no fold."""

from __future__ import annotations

import sqlite3
import subprocess
import time

import pytest

from e2e.test_tmux import Tmux
from e2e.test_tmux_recall import garden_in_a_terminal
from servers.fake_openai import FakeOpenAI

HELD = 90.0  # how long the fake holds each summarizer answer: far beyond what a quit may take


@pytest.fixture
def slow_summarizer():
    server = FakeOpenAI().start()
    server.answer_delay = HELD  # non-streaming requests are the summarizer's
    yield server
    server.stop()


def summarizer_calls(fake: FakeOpenAI) -> int:
    return sum(1 for body in fake.requests if not body.get("stream"))


def foreground(terminal: Tmux) -> str:
    shown = [*terminal.tmux, "display-message", "-p", "-t", terminal.name, "#{pane_current_command}"]
    return subprocess.run(shown, capture_output=True, text=True, check=True).stdout.strip()


def test_ctrl_q_during_a_fold_quits_without_waiting_for_its_requests(tmp_path, slow_summarizer):
    settings = f'summarizer = "llm"\nrequest_timeout = {HELD * 2}'
    terminal = garden_in_a_terminal(tmp_path, slow_summarizer, settings, "quit.db")
    database = tmp_path / "quit.db"
    try:
        terminal.type("/resummarize")
        deadline = time.monotonic() + 60
        while summarizer_calls(slow_summarizer) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert summarizer_calls(slow_summarizer) == 1  # the fold waits on its first call
        asked_at = time.monotonic()
        terminal.keys("C-q")
        while foreground(terminal).startswith("python") and time.monotonic() - asked_at < HELD / 2:
            time.sleep(0.1)
        assert not foreground(terminal).startswith("python"), terminal.screen()  # gone while the answer is held
        time.sleep(1)
        assert summarizer_calls(slow_summarizer) == 1  # the fold's later calls were never made
        with sqlite3.connect(database) as db:
            assert db.execute("SELECT COUNT(*) FROM folds").fetchone()[0] == 0  # nothing half-made kept
    finally:
        terminal.close()
