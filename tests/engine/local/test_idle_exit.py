"""A kept-alive local server's idle timer (`_IdleExit`), served by uvicorn on 127.0.0.1 and sent real HTTP
requests: only a request that carries the server's key counts as use. A stranger knocking on the port, even
one the server rejects, kept the model in memory for as long as it knocked."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import LocalModelServer, ensure_gguf
from foldchat.engine.local.server import _IdleExit
from test_local_model import local_home  # noqa: F401  (a fixture)

KEY = "k3y-of-this-server"
FOREVER = 10.0**9  # the watcher never ends this test's process: the test reads the timer itself


async def rejecting_app(scope, receive, send) -> None:
    """Stands for llama-cpp-python's app: a 401 without the key, a 200 with it."""
    if scope["type"] != "http":
        return
    headers = dict(scope["headers"])
    status = 200 if headers.get(b"authorization") == f"Bearer {KEY}".encode() else 401
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


@pytest.fixture
def served() -> Iterator[tuple[_IdleExit, int]]:
    idle = _IdleExit(rejecting_app, FOREVER, None, KEY)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(idle, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        yield idle, int(listener.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join()
        listener.close()


def request(port: int, headers: dict[str, str]) -> int:
    for _ in range(200):  # the server thread may still be starting: connection refused until it listens
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            connection.request("POST", "/v1/chat/completions", b"{}", headers)
            return connection.getresponse().status
        except ConnectionRefusedError:
            threading.Event().wait(0.05)
        finally:
            connection.close()
    raise AssertionError("the server never listened")


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {KEY}x"}, {"Authorization": KEY}],
    ids=["no-key", "wrong-key", "longer-key", "no-scheme"],
)
def test_requests_without_the_key_never_reset_the_idle_timer(served, headers):
    idle, port = served
    idle.last = 0.0  # as if the server had been idle since it started
    for _ in range(3):
        assert request(port, headers) == 401
    assert idle.last == 0.0 and idle.active == 0


def test_a_request_with_the_key_resets_the_idle_timer(served):
    idle, port = served
    idle.last = 0.0
    assert request(port, {"Authorization": f"Bearer {KEY}"}) == 200
    assert idle.last > 0.0


def knock(port: int) -> int | None:
    """A request without the key, as any local process may send: its status, or None once nobody listens."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/v1/models")
        return connection.getresponse().status
    except (ConnectionError, http.client.HTTPException):
        return None
    finally:
        connection.close()


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
