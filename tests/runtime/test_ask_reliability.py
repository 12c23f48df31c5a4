"""`foldchat ask` when things go wrong: a refused send poisons nothing, bad input creates nothing, and a
reply the database could not take (a full disk) is kept somewhere the user is told about."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cli.in_process import foldchat_main as foldchat  # in this process: what `ask` exits with, prints and stores


def rows(home: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(home / "foldchat.db") as db:
        return db.execute("SELECT role, status FROM messages ORDER BY id").fetchall()


def test_a_send_refused_as_too_big_stores_nothing_and_later_asks_work(home, fake):
    """Refused as the app refuses it (issue 42): before it is stored, with the arithmetic."""
    huge = "word " * 40_000  # far beyond the fake model's 16,000-token window
    refused = foldchat("ask", "-", "--model", "fake", stdin=huge)
    assert refused.returncode == 1 and "Not sent: the message is " in refused.stderr, refused.stderr
    assert "over fake's 16,000-token window" in refused.stderr and "Nothing was stored" in refused.stderr
    assert refused.stderr.count("\n") == 1 and fake.requests == []
    for n in range(2):  # every later plain ask goes through, without the refused text
        done = foldchat("ask", f"small question {n}", "--model", "fake")
        assert done.returncode == 0, done.stderr
        sent = fake.requests[-1]["messages"]
        assert all(len(m["content"] or "") < 1000 for m in sent) and sent[-1]["content"] == f"small question {n}"
    assert ("user", "unsent") not in rows(home) and len(rows(home)) == 4


def test_bad_input_to_ask_new_creates_nothing(home, fake):
    done = subprocess.run([sys.executable, "-m", "foldchat", "ask", "-", "--new", "--model", "fake"],
                          input=b"caf\xe9 latin-1", capture_output=True, timeout=120, env=os.environ.copy())  # fmt: skip
    assert done.returncode == 2 and b"stdin is not UTF-8" in done.stderr and b"internal error" not in done.stderr
    unknown = foldchat("ask", "hi", "--new", "--model", "no-such-model-anywhere")
    assert unknown.returncode == 2 and "no-such-model-anywhere" in unknown.stderr
    assert "--context-window" not in unknown.stderr  # an option ask does not have
    assert not (home / "foldchat.db").exists() or rows(home) == []
    assert foldchat("list").stderr.startswith("no conversations yet")


def test_a_full_disk_mid_reply_keeps_the_text_shown_and_says_so(home, fake, monkeypatch, capsys):
    from foldchat.engine import DiskFull, OpenOptions, Session

    from foldchat.cli import ask_cmd

    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    fake.reply = " ".join(f"sentence{n} of a long answer" for n in range(3000))  # ~90 KB, streamed in words
    session = Session.open(OpenOptions(new=True, model="fake"))
    session.connect(remember=True)
    store = session.store
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages + 8}")  # room for part of the ~90 KB reply only
    with pytest.raises(DiskFull) as caught:
        asyncio.run(ask_cmd.Answer(session).run("tell me everything"))
    shown = capsys.readouterr().out.strip()
    message = str(caught.value)
    assert message.startswith("the disk is full: the reply shown above was not saved") and "\n" not in message
    saved = Path(message.rsplit("its text is in ", 1)[1])
    # how much fits before the disk fills depends on how often the partial reply was saved: any real part will do
    assert saved.read_text() == shown and 1_000 < len(shown) < len(fake.reply)
    assert saved.is_relative_to(home / "data") and (saved.stat().st_mode & 0o777) == 0o600
    session.close()


def test_a_database_that_stops_growing_mid_reply_loses_nothing_shown(home, fake, monkeypatch):
    """A real write failure in a real `foldchat ask`: the file-size limit stops SQLite's writes mid-stream."""
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    assert foldchat("ask", "warm up", "--model", "fake").returncode == 0
    limit = (home / "foldchat.db").stat().st_size + 64 * 1024
    fake.script = ["slow"]

    def cap_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run([sys.executable, "-m", "foldchat", "ask", "go on", "--model", "fake"], text=True,
                          capture_output=True, timeout=120, env=os.environ.copy(), preexec_fn=cap_file_size)  # fmt: skip
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "internal error" not in done.stderr and "was not saved in the database" in done.stderr
    saved = Path(done.stderr.strip().rsplit("its text is in ", 1)[1])
    assert saved.read_text() == done.stdout.strip() and "word1" in done.stdout


def test_a_model_that_calls_tools_instead_of_answering_gets_a_reason_and_exit_1(home, fake):
    fake.script = ["tool"]  # no tool is offered (nothing folded), and it keeps calling one
    done = foldchat("ask", "what is the plan?", "--model", "fake")
    assert done.returncode == 1 and "called a tool again instead of answering" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and len(fake.requests) == 2
    fake.script = ["tool", "ok"]  # told that no tool is offered, it answers
    done = foldchat("ask", "and now?", "--model", "fake")
    assert done.returncode == 0 and done.stdout.strip() == fake.reply, done.stderr


def test_ask_new_on_a_full_disk_leaves_no_empty_conversation(home, fake):
    """It left an empty conversation per try, which then became the latest one `ask` continued."""
    assert foldchat("ask", "warm up", "--model", "fake").returncode == 0

    limit = (home / "foldchat.db").stat().st_size + 32 * 1024  # room for a conversation row, not a long prompt

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "foldchat", "ask", "--new", "-", "--model", "fake"],
                              input="a new topic " * 30_000, text=True, capture_output=True, timeout=120,
                              env=os.environ.copy(), preexec_fn=full_disk)  # fmt: skip
        assert done.returncode != 0 and "internal error" not in done.stderr, done.stderr
    with sqlite3.connect(home / "foldchat.db") as db:
        assert db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 1
    later = foldchat("ask", "and back to it", "--model", "fake")
    assert later.returncode == 0 and fake.requests[-1]["messages"][0]["content"] == "warm up"


def test_a_question_the_full_disk_could_not_take_is_said_to_be_unsaved_and_unsent(home, fake):
    """It said "the reply could not be saved", though the question was never stored and nothing was sent."""
    from foldchat.engine import DiskFull, OpenOptions, Session

    from foldchat.cli import ask_cmd

    assert foldchat("ask", "warm up", "--model", "fake").returncode == 0
    with Session.open(OpenOptions(model="fake")) as session:
        session.connect(remember=True)
        pages = session.store.db.execute("PRAGMA page_count").fetchone()[0]
        session.store.db.execute(f"PRAGMA max_page_count = {pages + 8}")  # SQLite's own "disk is full"
        with pytest.raises(DiskFull) as caught:
            # ~48 KB: more than the database has room for, less than the window (a bigger one is refused unstored)
            asyncio.run(ask_cmd.Answer(session).run("a long question " * 3_000))
    assert (
        str(caught.value)
        == "the disk is full: your question was not saved and nothing was sent; free some space and ask again"
    )
    assert len(fake.requests) == 1 and rows(home) == [("user", "complete"), ("assistant", "complete")]


def test_a_question_the_database_could_not_take_is_said_to_be_unsaved_and_unsent(home, fake):
    """A real `foldchat ask` whose write of the question fails (the file-size limit): one line, no reply talk."""
    assert foldchat("ask", "warm up", "--model", "fake").returncode == 0
    limit = (home / "foldchat.db").stat().st_size + 32 * 1024  # no room for a 48 KB question (that fits the window)

    def capped() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run([sys.executable, "-m", "foldchat", "ask", "-", "--model", "fake"],
                          input="a long question " * 3_000, text=True, capture_output=True, timeout=120,
                          env=os.environ.copy(), preexec_fn=capped)  # fmt: skip
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "your question was not saved and nothing was sent" in done.stderr and "reply" not in done.stderr
    assert len(fake.requests) == 1 and rows(home) == [("user", "complete"), ("assistant", "complete")]
