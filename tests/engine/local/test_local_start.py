"""`foldchat ask` starts the local model early, once, and leaves no server behind on any path."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from foldchat.engine import OpenOptions, Session, Workspace
from foldchat.engine.config import LocalModelSettings
from foldchat.engine.errors import LocalModelError
from foldchat.engine.local.model import LocalModelServer, ensure_gguf
from test_local_model import _servers_in, local_home  # noqa: F401  (local_home is a fixture)

from runtime.conftest import foldchat


def test_the_server_started_early_is_the_one_the_session_uses(local_home):  # noqa: F811
    options = OpenOptions(new=True)
    with Workspace.open(options) as workspace:
        workspace.start_model_early(options)
        early = workspace.registry.local.process
        assert early is not None  # launched, not waited for
        session = Session.open(options, workspace)
        session.connect(remember=True)
        session.prepare_model()
        assert workspace.registry.local.process is early  # no second launch
        assert _servers_in(local_home) == [early.pid]
    assert _servers_in(local_home) == []  # closing the workspace stopped it


def test_a_conversation_on_a_hosted_model_starts_no_local_server(home):
    with Workspace.open(OpenOptions()) as workspace:
        conversation = workspace.store.create_conversation(model="fake")
        options = OpenOptions(conversation=conversation)
        workspace.start_model_early(options)
        assert workspace.registry.local.process is None
        assert workspace.choose_model(workspace.choose_conversation(conversation)) == "fake"


def test_an_ask_that_fails_after_the_start_leaves_no_server(local_home, monkeypatch):  # noqa: F811
    monkeypatch.setenv("FOLDCHAT_LOCAL__CONTEXT_SIZE", "512")
    done = foldchat("ask", "--new", "word " * 2000)  # far over a 512-token window: refused after the start
    assert done.returncode == 1
    assert "not sent" in done.stderr.lower() and len(done.stderr.strip().splitlines()) == 1
    assert _servers_in(local_home) == []


def test_a_child_that_dies_while_starting_is_reported_as_exited(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    server = LocalModelServer(LocalModelSettings(model_path=ensure_gguf(LocalModelSettings())))
    server.launch()
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGKILL)  # while the readiness request waits in its socket
    with pytest.raises(LocalModelError, match="exited"):
        server._wait_ready()
    server.stop()


def test_stopping_a_server_that_is_still_starting_ends_the_wait_at_once(tmp_path, monkeypatch):
    """Quitting the app while the model loads stops the server; the thread waiting for it must not wait
    out `startup_timeout` (120 s) with the process, which cannot exit before that thread ends."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    server = LocalModelServer(LocalModelSettings(model_path=ensure_gguf(LocalModelSettings()), startup_timeout=60))
    server.launch()
    threading.Timer(0.3, server.stop).start()  # the quit, from the UI thread
    started = time.monotonic()
    with pytest.raises(LocalModelError, match="stopped"):
        server._wait_ready()
    assert time.monotonic() - started < 10
    assert server.process is None
