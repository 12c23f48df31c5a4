"""The local server child loads its model while it imports its web stack, and serves that very model.

These build the child's app in this process (the functions `local_server.main` calls, from the flags
the parent passes), so the test can see which model the server holds; the app is then served by
uvicorn on a loopback socket, as in the child.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local import server as local_server
from foldchat.engine.local.model import (
    SERVED_NAME,
    LocalModelServer,
    batch_threads,
    default_threads,
    ensure_gguf,
    loopback_listener,
    model_arguments,
)
from foldchat.engine.local.preload import PreloadedModel

KEY = "preload-test-key"


@pytest.fixture(scope="module", autouse=True)
def _chat_format() -> None:
    local_server.register_chat_format()  # as the child does before it builds the app


def _settings(**local: Any) -> tuple[Any, Any]:
    settings = LocalModelSettings(**local)
    return local_server.server_settings(model_arguments(settings, ensure_gguf(settings)))


def _served_model() -> Any:
    from llama_cpp.server import app as server_app

    assert server_app._llama_proxy is not None
    return server_app._llama_proxy(None)


@contextmanager
def _serving(app: Any) -> Iterator[LocalModelServer]:
    """`app` on a loopback socket, and a client for it (the parent's own code: readiness, counts)."""
    import uvicorn

    listener = loopback_listener()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    client = LocalModelServer(LocalModelSettings())
    client.port, client.api_key = int(listener.getsockname()[1]), KEY
    try:
        yield client
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


def test_the_preloaded_model_is_served_answers_and_counts():
    web, model = _settings(context_size=2048)
    preload = PreloadedModel(model)
    app = local_server.build_app(web, model, preload, KEY)
    assert preload.taken  # the server did not load a second copy
    served = _served_model()
    assert served.n_ctx() == 2048
    # the prompt is read with as many threads as the reply is written (local.threads), not every CPU
    assert served.n_threads == default_threads() and served.n_threads_batch == batch_threads()
    with _serving(app) as client:
        models = urllib.request.Request(f"{client.base_url}/models", headers={"Authorization": f"Bearer {KEY}"})
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(models, timeout=30) as response:
            assert SERVED_NAME in [m["id"] for m in json.load(response)["data"]]  # our alias, with our key
        counted = client.count_remotely(["Hello there", "word " * 50])
        assert counted is not None and counted[0] >= 2 and counted[1] >= 50
        body = {"messages": [{"role": "user", "content": "hello"}], "max_tokens": 8}
        request = urllib.request.Request(
            f"{client.base_url}/chat/completions", json.dumps(body).encode(),
            {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=120) as response:
            reply = json.load(response)
        assert reply["choices"][0]["finish_reason"] in ("stop", "length")
        assert reply["usage"]["completion_tokens"] >= 1


def test_settings_that_differ_from_the_preloaded_ones_load_the_model_asked_for():
    _, preloaded_settings = _settings(context_size=1024)
    web, model = _settings(context_size=2048)
    preload = PreloadedModel(preloaded_settings)
    local_server.build_app(web, model, preload, KEY)
    assert not preload.taken
    assert _served_model().n_ctx() == 2048  # what the server was asked for, not what was preloaded


def test_a_failed_preload_fails_the_start_with_the_load_error(tmp_path: Path):
    web, model = _settings(context_size=1024)
    model.model = str(tmp_path / "missing.gguf")  # the parent checks the file; here it vanished since
    with pytest.raises(ValueError, match=r"missing\.gguf"):
        local_server.build_app(web, model, PreloadedModel(model), KEY)


def test_a_preloaded_model_is_handed_over_once():
    _, model = _settings(context_size=1024)
    preload = PreloadedModel(model)
    assert preload.take(model) is not None
    assert preload.take(model) is None  # a second ask (another alias, say) loads its own
