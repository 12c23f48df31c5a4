"""End to end in a real terminal: foldchat in tmux against the real local model."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")


class Tmux:
    def __init__(self, env: dict[str, str]) -> None:
        # a private tmux server (-L): a user's running server would hand the session its own environment
        self.name = f"foldchat-{uuid.uuid4().hex[:8]}"
        self.tmux = ["tmux", "-L", self.name]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", self.name, "-x", "140", "-y", "44"], check=True, env=env)

    def run(self, command: str) -> None:
        self.keys(command, "Enter")

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", text], check=True)
        self.keys("Enter")

    def screen(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(self, predicate, timeout: float = 90.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(0.2)
        raise AssertionError(f"timed out; the screen shows:\n{self.screen()}")

    def pane_pid(self) -> int:
        shown = [*self.tmux, "display-message", "-p", "-t", self.name, "#{pane_pid}"]
        return int(subprocess.run(shown, capture_output=True, text=True, check=True).stdout)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(FOLDCHAT_DATABASE=str(tmp_path / "e2e.db"), FOLDCHAT_CONFIG=os.devnull, TERM="xterm-256color")
    # short replies: SmolLM2 writes pages, and a reply taller than the pane hides the header the test reads
    env.update(FOLDCHAT_LOCAL__MAX_REPLY_TOKENS="48")
    tmux = Tmux(env)
    yield tmux
    tmux.close()


def local_servers(root: int) -> set[int]:
    """The local model servers started under `root` (our tmux pane): a Foldchat open in another
    terminal runs its own server, which this test must neither count nor wait for."""
    table = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    children: dict[int, list[int]] = {}
    for line in table.splitlines():
        pid, ppid = (int(n) for n in line.split())
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        if "foldchat.engine.local.server" in _command_line(pid):
            found.add(pid)
    return found


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:  # gone already
        return ""


def running(pids: set[int]) -> set[int]:
    """Those of `pids` still alive (a zombie waiting for its parent counts as gone)."""
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as file:
                if file.read().rpartition(")")[2].split()[0] != "Z":
                    alive.add(pid)
        except OSError:
            continue
    return alive


def local_replies(screen: str) -> int:
    """Reply headers on the screen from the local model ("Assistant · … · local": a cut mark or the wait
    comes before the model's name)."""
    return len(re.findall(r"^ *Assistant · (?:.* · )?local *$", screen, re.M))


def test_chat_fold_unfold_quit_and_resume_in_a_real_terminal(terminal, tmp_path):
    command = f"cd {tmp_path} && {sys.executable} -m foldchat"
    terminal.run(command)
    terminal.wait_for(lambda s: "token window" in s)  # the local model is up
    ours = local_servers(terminal.pane_pid())
    assert ours  # the app started its own server
    # long enough that a snapshot is smaller than what it replaces
    story = "We walked along the river and talked about food and music. " * 40
    terminal.type(f"Here is my diary of trip TR-7 to Lisbon (2026-05-02). {story}")
    terminal.wait_for(lambda s: local_replies(s) >= 1 and "streaming" not in s)
    terminal.type("Thanks. And what is the capital of Spain?")
    terminal.wait_for(lambda s: local_replies(s) >= 2 and "streaming" not in s)
    terminal.type("/resummarize")
    terminal.wait_for(lambda s: "⟨ Folded " in s)  # how many depends on the tail the budget keeps
    terminal.type("/unfold")
    terminal.wait_for(lambda s: "Undo fold" in s)  # undoing a fold asks first
    terminal.keys("y")
    terminal.wait_for(lambda s: "undone" in s and "⟨ Folded" not in s)
    terminal.keys("C-q")
    terminal.wait_for(lambda s: "Enter send" not in s, timeout=20)  # back at the shell
    deadline = time.monotonic() + 20
    while running(ours) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(ours)  # the local model server went away with the app

    terminal.run(command)
    screen = terminal.wait_for(lambda s: "token window" in s)
    assert "capital of Spain" in screen
