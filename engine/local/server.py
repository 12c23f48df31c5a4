"""Child-process entry point for the local model server (`python -P -m foldchat.engine.local.server`).

It runs llama.cpp's own C++ server (the prebuilt `xllamacpp` wheel: no compiler, no build on install)
on 127.0.0.1, on a port the kernel picks, tells the parent that port through a pipe, and makes sure it
dies with its parent (a thread watches the parent pid).

Nothing in the user's shell configures it: every setting is set here from our flags (llama.cpp's own
`LLAMA_ARG_*` variables are read only by its command line, which is not used), the API key arrives in
the `API_KEY` variable of an environment the parent built (never on the command line, which every
local user can read), there is no web UI and no cross-origin access, and the port is known only once
the server listens, so no other process can take it first.
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

READ_STEP = 256
"""Prompt tokens read between two progress reports (llama.cpp's default batch is 2,048: ~15 s on 2 quiet
cores; 512 still left a loaded machine 16 s without a word, and one report for an 800-token paste)."""
IDLE_POLL = 0.5
"""Seconds between two looks at a kept-alive server's work counters."""


def _die_with_parent(parent: int) -> None:
    # Polling, not PR_SET_PDEATHSIG: that signal fires when the *thread* that started us ends, and the
    # TUI starts the server from a worker thread.
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def work_done(port: int, api_key: str | None) -> tuple[float, ...] | None:
    """The server's work counters (decode calls, tokens read, requests running), None if unreadable.

    Only a request with the key can make the model work: a stranger knocking on the port (rejected with
    401) changes none of them, so knocks never keep a kept-alive server in memory.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {api_key or ''}"})
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    if response.status != 200:
        return None
    wanted = ("llamacpp:n_decode_total", "llamacpp:prompt_tokens_total", "llamacpp:requests_processing")
    values = dict(line.split()[:2] for line in text.splitlines() if line.startswith(wanted) and " " in line)
    return tuple(float(values.get(name, "nan")) for name in wanted)


class IdleExit:
    """A kept-alive server exits once no Foldchat has used it for `seconds`.

    Use is what only a Foldchat holding the key can cause: the model working (its counters move, or a
    request runs) or the state file being touched (a Foldchat that found the server and is about to ask).
    On exit it removes the state file that lets the next `ask` find it, if it still names us.
    """

    def __init__(self, port: int, api_key: str | None, seconds: float, state_file: str | None) -> None:
        self.port, self.api_key, self.seconds, self.state_file = port, api_key, seconds, state_file
        self.last = time.monotonic()
        self._seen: tuple[float, ...] | None = None
        self._touched = self._state_mtime()

    def _state_mtime(self) -> float | None:
        try:
            return os.stat(self.state_file).st_mtime if self.state_file else None
        except OSError:
            return None

    def used(self) -> bool:
        """Whether anyone with the key used the server since the last look."""
        counters, touched = work_done(self.port, self.api_key), self._state_mtime()
        busy = counters is not None and (counters != self._seen or counters[2] > 0)
        busy = busy or touched != self._touched
        self._seen, self._touched = counters, touched
        return busy

    def watch(self) -> None:
        self.used()  # the counters at start: loading the model is not use
        while True:
            if self.used():
                self.last = time.monotonic()
            elif time.monotonic() - self.last >= self.seconds:
                break
            time.sleep(min(IDLE_POLL, self.seconds / 4))
        self._forget()
        os._exit(0)

    def _forget(self) -> None:
        if not self.state_file:
            return
        try:
            if f'"pid": {os.getpid()},' in Path(self.state_file).read_text():
                os.unlink(self.state_file)
        except OSError:
            pass


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="foldchat-local-server")
    parser.add_argument("--port_fd", type=int, required=True, help="pipe to write the listening port to")
    parser.add_argument("--keep_alive", type=float, default=0.0)
    parser.add_argument("--state_file", default=None)
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--n_ctx", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--threads_batch", type=int, required=True)
    parser.add_argument("--chat_template", default="", help="a llama.cpp template name, or Jinja text")
    parser.add_argument("--kv_q8", action="store_true", help="an 8-bit KV cache")
    return parser.parse_args(argv)


def server_params(args: argparse.Namespace, api_key: str | None) -> Any:
    """llama.cpp's server parameters for `args`: loopback, a kernel-picked port, our key, no extras."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.n_ctx = args.n_ctx
    params.n_parallel = 1  # one reply at a time: a second request waits for the first, never cuts it
    params.n_batch = READ_STEP  # progress is said after each batch read: every few seconds on 2 cores
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads_batch
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.api_keys = [api_key] if api_key else []
    params.ui = False  # the model is for this user's Foldchat, not for a browser
    # no web page may call it: the allowed origin is empty, which matches no page (the server's default is *)
    params.cors_origins, params.cors_origins_explicit, params.cors_credentials = "", True, False
    params.endpoint_metrics = True  # the idle watch reads its counters (with the key)
    # Jinja for the model's own template and for ours; a name llama.cpp knows is applied natively (with Jinja
    # on, the name itself would be taken for a template and printed as every prompt)
    params.use_jinja = not args.chat_template or "{" in args.chat_template
    if args.chat_template:
        params.chat_template = args.chat_template
    if args.kv_q8:
        params.cache_type_k = params.cache_type_v = xllamacpp.ggml_type.GGML_TYPE_Q8_0
    return params


def main() -> None:
    args = arguments(sys.argv[1:])
    if args.keep_alive <= 0:  # the usual rule: no server outlives the process that started it
        _die_with_parent(int(os.environ.get("FOLDCHAT_PARENT_PID", os.getppid())))
    api_key = os.environ.get("API_KEY")
    import xllamacpp

    server = xllamacpp.Server(server_params(args, api_key))  # loads the model, then listens
    port = int(str(server.listening_address).rstrip("/").rsplit(":", 1)[1])
    with os.fdopen(args.port_fd, "w") as pipe:
        pipe.write(f"{port}\n")
    if args.keep_alive > 0:
        IdleExit(port, api_key, args.keep_alive, args.state_file).watch()
    while True:  # the server's own threads serve; this one only keeps the process (and `server`) alive
        time.sleep(3600)


if __name__ == "__main__":
    main()
