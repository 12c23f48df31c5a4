"""Child-process entry point for the local model server (`python -P -m foldchat.engine.local.server`).

It registers Foldchat's transcript chat format with llama-cpp-python, makes sure it dies with its
parent (a thread watches the parent pid), builds llama-cpp-python's OpenAI-compatible app from the
remaining arguments and serves it on the listening socket the parent passes as `--listen_fd`.

Why not llama-cpp-python's own `main`: it binds `HOST`/`PORT` from the environment over its flags and
adds a CORS middleware that lets any web page call the model with credentials. Here the socket is the
parent's (bound to 127.0.0.1 before we exist, so no other process can take the port), no CORS
middleware is installed, and the API key arrives in the `API_KEY` variable of an environment the
parent built (never on the command line, which every local user can read).

The model loads in a thread while the web stack imports (`local_preload`): a cold start pays the
longer of the two, not their sum.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import socket
import sys
import threading
import time
from typing import Any

from .preload import PreloadedModel, serving_preloaded


def _die_with_parent(parent: int) -> None:
    # Polling, not PR_SET_PDEATHSIG: that signal fires when the *thread* that started us ends, and the
    # TUI starts the server from a worker thread.
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


class _IdleExit:
    """ASGI wrapper for a kept-alive server: it exits once no request with its key has run for `seconds`.

    With `local.keep_alive` the server outlives the Foldchat that started it, so nothing else would
    stop it. Only requests that carry `api_key` count as use: any local process can knock on the port,
    and one that knocked without the key (rejected, 401) kept the model in memory as long as it knocked.
    On exit it removes the state file that lets the next `ask` find it, if it still names us.
    """

    def __init__(self, app: Any, seconds: float, state_file: str | None, api_key: str | None) -> None:
        self.app, self.seconds, self.state_file = app, seconds, state_file
        self.key = None if api_key is None else api_key.encode()
        self.active = 0
        self.last = time.monotonic()
        threading.Thread(target=self._watch, daemon=True, name="idle-exit").start()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self._authenticated(scope):  # lifespan lasts as long as the server
            await self.app(scope, receive, send)
            return
        self.active += 1
        self.last = time.monotonic()  # use from its first byte: its reply may reach the client before `finally`
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1
            self.last = time.monotonic()

    def _authenticated(self, scope: Any) -> bool:
        """The request carries the key as llama-cpp-python reads it: the first Authorization header,
        `<scheme> <key>` with the scheme `bearer` in any case."""
        if self.key is None:  # a server without a key: every request is its user's
            return True
        given = next((value for name, value in scope.get("headers") or [] if name == b"authorization"), b"")
        scheme, _, credentials = bytes(given).partition(b" ")
        return scheme.lower() == b"bearer" and secrets.compare_digest(credentials, self.key)

    def _watch(self) -> None:
        while self.active or time.monotonic() - self.last < self.seconds:
            time.sleep(min(0.5, self.seconds / 4))
        if self.state_file:
            try:
                with open(self.state_file) as state:
                    ours = f'"pid": {os.getpid()},' in state.read()
                if ours:
                    os.unlink(self.state_file)
            except OSError:
                pass
        os._exit(0)


def register_chat_format() -> None:
    """Foldchat's transcript format (transcript_prompt.py) under its name; once per process."""
    from foldchat.engine.transcript_prompt import FORMAT_NAME, STOP, transcript_prompt
    from llama_cpp import llama_chat_format

    @llama_chat_format.register_chat_format(FORMAT_NAME)
    def _format(messages: list[dict[str, Any]], **_: Any) -> llama_chat_format.ChatFormatterResponse:
        return llama_chat_format.ChatFormatterResponse(prompt=transcript_prompt(messages), stop=STOP)


COUNT_PATH = "/foldchat/count"


def _count_route(api_key: str | None) -> Any:
    """POST {"texts": [...]} -> {"counts": [...]}: tokens as Foldchat counts them (no BOS; special-token
    text read as plain text), with the served model's own vocabulary.

    llama-cpp-python's `/extras/tokenize` adds a BOS, parses special tokens, and takes the model lock:
    a count sent while a reply streams would wait for the reply, or cut it (the server interrupts a
    stream when another request queues). Tokenizing reads only the vocabulary, which llama.cpp's own
    server also does beside a running decode, so this route does not take the lock.
    """
    import json
    import secrets

    from llama_cpp.server import app as server_app
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def count(texts: list[str]) -> list[int]:
        proxy = server_app._llama_proxy  # set by create_app; calling it returns the loaded model, no lock
        if proxy is None:
            raise RuntimeError("no model is loaded")
        llama = proxy(None)
        return [len(llama.tokenize(t.encode("utf-8"), add_bos=False, special=False)) for t in texts]

    async def endpoint(request: Any) -> Any:
        given = request.headers.get("authorization", "")
        if api_key is not None and not secrets.compare_digest(given.encode(), f"Bearer {api_key}".encode()):
            return JSONResponse({"error": {"message": "Invalid API key"}}, status_code=401)
        try:
            texts = json.loads(await request.body())["texts"]
            if not (isinstance(texts, list) and all(isinstance(t, str) for t in texts)):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": {"message": 'expected {"texts": [strings]}'}}, status_code=400)
        return JSONResponse({"counts": await run_in_threadpool(count, texts)})

    return Route(COUNT_PATH, endpoint, methods=["POST"])


def server_settings(argv: list[str]) -> tuple[Any, Any]:
    """llama-cpp-python's (ServerSettings, ModelSettings) from its command-line flags."""
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

    parser = argparse.ArgumentParser(prog="foldchat-local-server")
    add_args_from_model(parser, Settings)
    args = parser.parse_args(argv)
    return parse_model_from_args(ServerSettings, args), parse_model_from_args(ModelSettings, args)


def build_app(server: Any, model: Any, preload: PreloadedModel | None, api_key: str | None) -> Any:
    """llama-cpp-python's app for `model` (taken from `preload` when it holds those settings), with
    no CORS and with the count route."""
    from llama_cpp.server.app import create_app
    from starlette.middleware.cors import CORSMiddleware

    # a request that arrives while a reply streams waits for it (the default ends the streaming reply
    # early: two `ask`s against a kept-alive server broke each other, and a health check cut replies)
    server.interrupt_requests = False
    with serving_preloaded(preload) if preload is not None else contextlib.nullcontext():
        app = create_app(server_settings=server, model_settings=[model])
    # the model is for this user's Foldchat, not for web pages: no cross-origin access at all
    app.user_middleware = [m for m in app.user_middleware if m.cls is not CORSMiddleware]
    app.router.routes.append(_count_route(api_key))
    app.middleware_stack = None
    return app


def main() -> None:
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--listen_fd", type=int, required=True)
    ours.add_argument("--keep_alive", type=float, default=0.0)
    ours.add_argument("--state_file", default=None)
    known, rest = ours.parse_known_args(sys.argv[1:])
    if known.keep_alive <= 0:  # the usual rule: no server outlives the process that started it
        _die_with_parent(int(os.environ.get("FOLDCHAT_PARENT_PID", os.getppid())))
    listener = socket.socket(fileno=known.listen_fd)  # family and type come from the socket itself
    web, model = server_settings(rest)
    register_chat_format()
    preload = PreloadedModel(model)  # loads while build_app imports the web stack: see local_preload
    app = build_app(web, model, preload, os.environ.get("API_KEY"))
    if known.keep_alive > 0:
        app = _IdleExit(app, known.keep_alive, known.state_file, os.environ.get("API_KEY"))

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    server.run(sockets=[listener])


if __name__ == "__main__":
    main()
