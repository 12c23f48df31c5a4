"""kill -9 in the middle of things: nothing committed is lost, nothing is left running."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

from foldchat.engine.store import Store

from runtime.conftest import foldchat


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_kill_9_mid_stream_leaves_the_partial_reply_marked_interrupted(home, fake):
    fake.script = ["slow"]
    process = subprocess.Popen(
        [sys.executable, "-m", "foldchat", "ask", "stream slowly", "--model", "fake"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy(),
    )  # fmt: skip
    db_path = home / "foldchat.db"

    def partial_saved():
        if not db_path.exists():
            return None
        try:  # the asking process may not have created its tables yet
            with sqlite3.connect(db_path) as db:
                row = db.execute("SELECT payload FROM messages WHERE role = 'assistant'").fetchone()
        except sqlite3.OperationalError:
            return None
        return row if row and "word5" in row[0] else None

    wait_for(partial_saved)
    process.send_signal(signal.SIGKILL)
    process.wait()
    store = Store(db_path)  # a new process opening the database recovers it
    stored = store.messages(1)
    assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert stored[0].message.text == "stream slowly" and stored[0].status == "complete"
    assert stored[1].status == "interrupted"
    assert stored[1].message.text.startswith("word0 word1 word2 word3 word4 word5")
    # and the conversation goes on from there
    fake.script = ["ok"]
    assert foldchat("ask", "go on", "--model", "fake").returncode == 0
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["user", "assistant", "user"]


def test_two_processes_write_one_database_without_corruption(home, fake):
    procs = [
        subprocess.Popen([sys.executable, "-m", "foldchat", "ask", f"q{n}", "--new", "--model", "fake"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
        for n in range(4)
    ]  # fmt: skip
    # generous: four interpreters importing litellm at once on a small, busy machine
    assert [p.wait(timeout=240) for p in procs] == [0, 0, 0, 0]
    store = Store(home / "foldchat.db")
    assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(c.message_count for c in store.conversations()) == [2, 2, 2, 2]


def test_no_orphaned_local_model_server_after_the_parent_is_killed(tmp_path):
    script = textwrap.dedent(
        """
        import sys, time
        from foldchat.engine.config import LocalModelSettings
        from foldchat.engine.local.model import LocalModelServer
        server = LocalModelServer(LocalModelSettings())
        server.start()
        print(server.process.pid, server.port, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child_pid, _port = (int(x) for x in parent.stdout.readline().split())
    os.kill(child_pid, 0)  # the server runs
    parent.kill()
    parent.wait()

    def gone():
        try:
            os.kill(child_pid, 0)
        except ProcessLookupError:
            return True
        # a zombie is reaped by init; check /proc status
        try:
            with open(f"/proc/{child_pid}/status") as status:
                return "zombie" in status.read()
        except FileNotFoundError:
            return True

    wait_for(gone, timeout=10)
