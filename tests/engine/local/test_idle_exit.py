"""A kept-alive local server's idle timer (`server.IdleExit`), against the real llama.cpp server: only what a
Foldchat holding the key can cause counts as use. A stranger knocking on the port, even one the server
rejects, kept the model in memory for as long as it knocked."""

from __future__ import annotations

import http.client
import json
import os
import time

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import LocalModelServer, ensure_gguf
from foldchat.engine.local.server import IdleExit, work_done
from test_local_model import local_home, local_server  # noqa: F401  (fixtures)

FOREVER = 10.0**9  # the test reads the watcher's verdict itself; it never ends this process


def knock(port: int, path: str = "/v1/models", key: str | None = None, body: dict | None = None) -> int | None:
    """A request as any local process may send (without the key unless given): its status, or None once
    nobody listens."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    try:
        if body is None:
            connection.request("GET", path, headers=headers)
        else:
            connection.request("POST", path, json.dumps(body).encode(), headers)
        response = connection.getresponse()
        response.read()
        return response.status
    except (ConnectionError, http.client.HTTPException):
        return None
    finally:
        connection.close()


COMPLETION = {"messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 2}


def test_knocks_without_the_key_are_not_use_and_a_reply_with_it_is(local_server):  # noqa: F811
    port, key = local_server.port, local_server.api_key
    idle = IdleExit(port, key, FOREVER, None)
    assert work_done(port, key) is not None, "the watcher cannot read the server's counters"
    idle.used()
    for headers_key in (None, "wrong", f"{key}x"):
        assert knock(port, "/v1/chat/completions", headers_key, COMPLETION) == 401
        assert knock(port, "/metrics", headers_key) == 401  # strangers cannot read the counters either
    assert not idle.used()
    assert knock(port, "/v1/chat/completions", key, COMPLETION) == 200
    assert idle.used()


def test_touching_the_state_file_counts_as_use(tmp_path, local_server):  # noqa: F811
    state = tmp_path / "local-server.json"
    state.write_text("{}")
    os.utime(state, (1, 1))
    idle = IdleExit(local_server.port, local_server.api_key, FOREVER, str(state))
    idle.used()
    assert not idle.used()
    os.utime(state)  # what a Foldchat that found the server does before it asks (`LocalModelServer._reuse`)
    assert idle.used()


def test_the_real_kept_alive_server_exits_while_strangers_knock_without_its_key(local_home):  # noqa: F811
    settings = LocalModelSettings(keep_alive=3, model_path=ensure_gguf(LocalModelSettings()))
    server = LocalModelServer(settings)
    server.start()
    process = server.process
    assert process is not None and server.port is not None
    try:
        statuses = []
        while process.poll() is None and len(statuses) < 600:  # knocking faster than the 3 s it waits
            statuses.append(knock(server.port))
            time.sleep(0.2)
        assert process.poll() is not None, "knocks without the key kept it alive"
        assert statuses[0] == 401 and set(statuses) <= {401, None}
        assert not (local_home / "local-server.json").exists()
    finally:
        server.stop()
        if process.poll() is None:
            process.kill()
        process.wait()
