"""The embedded local model (docs/design.md §10): Gemma 3 270M, assembled once, served on 127.0.0.1.

The model file comes from `gguf.ensure_gguf` (assembled once, checksum verified). `LocalModelServer` starts
llama.cpp's own OpenAI-compatible server (prebuilt in the `xllamacpp` wheel) as a child process on a
loopback port the kernel picks, waits until it answers, and stops it when Foldchat exits; the child also
exits by itself if its parent dies.

The child is started so that nothing in the user's shell can redirect it: a minimal environment (no
provider keys, no proxy or server variables), every setting given as a flag, a random per-session API
key, and `-P` with a neutral working directory so a `foldchat` folder in the user's working directory
cannot shadow the installed package. Bad `local.*` settings are caught before it starts.

Token counts use the model's own vocabulary, asked of the server (`count_text`); nothing here imports
litellm (its import costs seconds).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import http.client
import importlib.util
import json
import os
import secrets
import select
import subprocess
import sys
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import IO

from ..config import LocalModelSettings
from ..errors import LocalModelError
from ..paths import cache_dir, create_private_file, private_file
from .gguf import Progress, ensure_gguf as ensure_gguf, no_progress
from .server_flags import (  # re-exported: where the rest of the engine, the tests and the benches look
    SERVED_NAME as SERVED_NAME,
    batch_threads as batch_threads,
    check_chat_format,
    default_threads as default_threads,
    model_arguments as model_arguments,
    repeat_penalty as repeat_penalty,
    request_extras as request_extras,
)  # ensure_gguf: where tests and benches look

COUNT_CACHE = 4096
"""Texts whose counts are remembered (a count is an HTTP request; recall and the gauge ask again)."""
# what the child may inherit: enough to run Python and its libraries, nothing that configures a server
READY_WAIT = 10.0
"""Seconds the check that the server answers us may take."""
CHILD_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "LD_LIBRARY_PATH", "PYTHONPATH")


SERVER_MODULES = ("xllamacpp",)


def server_installed() -> bool:
    """Whether llama.cpp's server can run, found without importing it (the child imports it)."""
    return all(importlib.util.find_spec(name) is not None for name in SERVER_MODULES)


def child_environment(api_key: str) -> dict[str, str]:
    """The local server's whole environment: the few variables Python needs, the key, the parent pid."""
    env = {name: os.environ[name] for name in CHILD_ENVIRONMENT if name in os.environ}
    env.update({"API_KEY": api_key, "FOLDCHAT_PARENT_PID": str(os.getpid())})
    return env


def bypass_proxies_for_loopback() -> None:
    """Make every HTTP client of this process (litellm's included) reach 127.0.0.1 directly.

    A proxy variable in the user's shell would otherwise send the local model's traffic, and its
    session key, to the proxy, which cannot reach our loopback server anyway.
    """
    for name in ("no_proxy", "NO_PROXY"):
        hosts = [h.strip() for h in os.environ.get(name, "").split(",") if h.strip()]
        missing = [h for h in ("127.0.0.1", "localhost") if h not in hosts]
        if missing:
            os.environ[name] = ",".join([*hosts, *missing])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process now holds that pid
        return False
    return True


class LocalModelServer:
    """One llama.cpp server child process, owned by this Foldchat process."""

    def __init__(self, settings: LocalModelSettings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self.model_path: Path | None = None
        self._log: IO[bytes] | None = None
        self.log_path = cache_dir() / "local-model.log"
        self.state_path = cache_dir() / "local-server.json"  # a kept-alive server, for the next ask
        self.api_key = secrets.token_urlsafe(32)  # per session: only this Foldchat can use the server
        self._kept_pid: int | None = None  # a kept-alive server this process found and uses
        self._remembered = False  # this process started a kept-alive server and wrote its state file
        self._port_pipe: int | None = None  # the child writes the port it listens on here
        self._pipe_lock = threading.Lock()  # a read of the pipe and its closing (a quit) never overlap
        self._connections = threading.local()  # one kept-open connection per counting thread
        # a start in a worker thread and the app's quit race: the process is made and killed under this
        # lock, and once closed nothing starts again (a server started after /quit outlived the app)
        self._process_lock = threading.Lock()
        self.closed = False
        self._ready = False  # the server answered us
        self._counted = lru_cache(maxsize=COUNT_CACHE)(self._count_one)

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalModelError("the local model server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def listening(self) -> bool:
        """Running, and its port is known (a child still loading its model has none yet)."""
        return self.port is not None and self.running

    @property
    def running(self) -> bool:
        if self._kept_pid is not None:
            return _alive(self._kept_pid)
        return self.process is not None and self.process.poll() is None

    def start(self, progress: Progress = no_progress) -> str:
        """Start (if needed) and wait until the server answers; returns its base URL."""
        self.launch(progress)
        if self._kept_pid is not None:
            if self._answers():  # still there (found early, before litellm loaded): its idle clock restarts
                self._ready = True
                return self.base_url
            self._kept_pid, self.port, self.api_key = None, None, secrets.token_urlsafe(32)  # it timed out meanwhile
            self.launch(progress)
        if self._ready and self.running:
            return self.base_url
        self._wait_ready()
        self._ready = True
        self._remember()
        progress("starting local model", 1, 1)
        return self.base_url

    def launch(self, progress: Progress = no_progress) -> None:
        """Start the server process without waiting for it to answer (or find a kept-alive one).

        `foldchat ask` calls this before it imports litellm, so the model loads meanwhile; `start`
        then only waits for what is left.
        """
        if self.running or (self.settings.keep_alive > 0 and self._reuse()):
            return
        if not server_installed():
            raise LocalModelError(
                "the local model needs llama.cpp's server: pip install 'foldchat[local]' (make run does it)"
            )
        check_chat_format(self.settings.chat_format)
        bypass_proxies_for_loopback()
        self.model_path = ensure_gguf(self.settings, progress)
        progress("starting local model", 0, 1)
        self.port = None  # the child picks it: known when it listens (`_wait_ready`)
        reader, writer = os.pipe()
        command = [sys.executable, "-P", "-m", "foldchat.engine.local.server", "--port_fd", str(writer)]
        command += model_arguments(self.settings, self.model_path)
        keep = self.settings.keep_alive
        if keep > 0:  # it outlives us: its own session (no terminal signals), and an idle timer
            command += ["--keep_alive", str(keep), "--state_file", str(self.state_path)]
        try:
            with self._process_lock:
                if self.closed:
                    raise LocalModelError("the app is closing: the local model is not started")
                self._log = self.log_path.open("wb")
                private_file(self.log_path)
                self.process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                    env=child_environment(self.api_key), cwd=cache_dir(), pass_fds=(writer,),
                    start_new_session=keep > 0,
                )  # fmt: skip
                self._port_pipe, reader = reader, -1
        finally:
            os.close(writer)  # the child holds its own copy: its exit ends our read
            if reader >= 0:
                os.close(reader)
        atexit.register(self.stop)

    def _server_key(self) -> str:
        """What a kept-alive server must share with us to be reused: model, window, threads, format."""
        parts = [sys.executable, str(self.model_path), self.settings.context_size, self.settings.threads]
        parts += [self.settings.chat_format, self.settings.keep_alive, "xllamacpp"]
        return hashlib.sha256(repr(parts).encode()).hexdigest()

    def _reuse(self) -> bool:
        """Use the kept-alive server the state file names, if it is alive, ours and answers."""
        try:
            self.model_path = ensure_gguf(self.settings)
            state = json.loads(self.state_path.read_text())
            pid, port, key = int(state["pid"]), int(state["port"]), str(state["api_key"])
            same = state["key"] == self._server_key()
        except (OSError, ValueError, KeyError, TypeError):
            return False
        if not same or not _alive(pid):
            return False
        fresh_key, self.api_key, self.port = self.api_key, key, port
        if self._answers():
            self._kept_pid = pid
            with contextlib.suppress(OSError):  # use the server sees (server.IdleExit): it stays for our request
                os.utime(self.state_path)
            return True
        self.api_key, self.port = fresh_key, None
        return False

    def _remember(self) -> None:
        """Write the state file (0600) that lets the next `ask` find a kept-alive server."""
        if self.settings.keep_alive <= 0 or self.process is None:
            return
        state = {"pid": self.process.pid, "port": self.port, "api_key": self.api_key, "key": self._server_key()}
        folder = self.state_path.parent
        partial = create_private_file(
            folder, f"{self.state_path.stem}.{os.getpid()}", ".partial", json.dumps(state).encode()
        )
        os.replace(partial, self.state_path)
        self._remembered = True

    def _wait_ready(self) -> None:
        """Wait until the child says its port (it listens from then on) and answers with our key and alias.

        The child writes the port once the model is loaded; a child that dies closes the pipe, which ends
        the wait at once.
        """
        deadline = time.monotonic() + self.settings.startup_timeout
        while self.port is None:
            if self.process is None:  # stopped meanwhile (the app quit while the model loaded): stop waiting
                raise LocalModelError("the local model server was stopped while it started")
            if (left := deadline - time.monotonic()) <= 0:
                self.stop()
                raise LocalModelError(
                    f"the local model server did not answer within {self.settings.startup_timeout:.0f} s: {self._tail()}"
                )
            said = self._read_port(min(left, 0.5))
            if said is None and self.process is not None and self.process.poll() is not None:
                raise LocalModelError(f"the local model server exited (code {self.process.returncode}): {self._tail()}")
            self.port = said
        served = self._served_models()
        if SERVED_NAME not in served:
            self.stop()
            raise LocalModelError(f"the local model server answered with models {served}, not {SERVED_NAME}")

    def _read_port(self, timeout: float) -> int | None:
        """The port the child wrote on the pipe, or None (not yet, or the pipe closed without one)."""
        with self._pipe_lock:
            pipe = self._port_pipe
            if pipe is None:
                return None
            ready, _, _ = select.select([pipe], [], [], timeout)
            if not ready:
                return None
            said = os.read(pipe, 64).decode("ascii", "replace").strip()
            self._close_pipe()
        if not said.isdigit():  # closed without a port: the child failed; poll() says so next
            if self.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
            return None
        return int(said)

    def _served_models(self) -> list[object]:
        """The model ids the server lists for our key ([] when it does not answer us)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=READY_WAIT)
        try:
            connection.request("GET", "/v1/models", headers={"Authorization": f"Bearer {self.api_key}"})
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                return []
            return [m.get("id") for m in json.loads(body).get("data", [])]
        except (OSError, http.client.HTTPException, ValueError, AttributeError):
            return []
        finally:
            connection.close()

    def _tail(self) -> str:
        """The last line of the server's log that says what went wrong (no traceback frames)."""
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        meaningful = [
            line.strip() for line in lines
            if line.strip() and not line.startswith((" ", "\t", "Traceback")) and not line.strip().startswith("^")
        ]  # fmt: skip
        line = meaningful[-1] if meaningful else "no output"
        return line[:240] + (f" (see {self.log_path})" if len(lines) > 1 else "")

    def close(self) -> None:
        """Stop the server for good: a start still on its way (a worker thread) starts nothing."""
        with self._process_lock:
            self.closed = True
        self.stop()

    def stop(self) -> None:
        """Stop the server this process started; a kept-alive one is left to its idle timer."""
        with self._process_lock:  # a Popen in flight finishes first, so its process is the one killed
            process, self.process = self.process, None
        self._kept_pid = None
        self._ready = False
        if self._remembered:
            process = None  # local.keep_alive: the next ask reuses it; it exits by itself when idle
        if process is not None and process.poll() is None:
            # killed, not asked: it holds nothing to save (the model file is only read), and a graceful
            # shutdown plus freeing the model would be paid at the end of every `ask`
            process.kill()
            process.wait()
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None
        with self._pipe_lock:  # after the kill: a read in progress sees the pipe close and ends first
            self._close_pipe()

    def _close_pipe(self) -> None:
        pipe, self._port_pipe = self._port_pipe, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                os.close(pipe)

    def count_text(self, text: str) -> int:
        """Tokens in `text` by the model's own vocabulary, as Foldchat counts them: no BOS, special-token
        text read as plain text.

        The server counts (`/tokenize` answers beside a running reply, in a few ms); the server starts first
        if it is not up. Counts are remembered, so recounting a context costs nothing.
        """
        if not text:
            return 0
        if not self._ready:
            self.start()
        return self._counted(text)

    def _count_one(self, text: str) -> int:
        counted = self.count_remotely([text])
        if counted is None:
            raise LocalModelError(f"the local model server did not count tokens: {self._tail()}")
        return counted[0]

    def _answers(self) -> bool:
        """The server answers us (our key) and serves our alias."""
        return SERVED_NAME in self._served_models()

    def count_remotely(self, texts: list[str]) -> list[int] | None:
        """The server's counts for `texts`; None when it cannot answer."""
        counts = []
        for text in texts:
            body = json.dumps({"content": text, "add_special": False, "parse_special": False}).encode()
            answer = self._post("/tokenize", body)
            tokens = answer.get("tokens") if isinstance(answer, dict) else None
            if not isinstance(tokens, list):
                return None
            counts.append(len(tokens))
        return counts

    def _post(self, path: str, body: bytes) -> object:
        """POST `body` on this thread's kept-open connection (one retry on a fresh one); the JSON answer,
        None on any failure. http.client, not urllib: no opener to build and no proxy to consult (none may
        see the key), and a reply is counted on every turn."""
        from .stream import connection_to

        headers = {"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"}
        for _attempt in range(2):
            connection = getattr(self._connections, "open", None)
            if self.port is None:
                return None
            if connection is None or getattr(self._connections, "port", None) != self.port:
                connection = connection_to(f"http://127.0.0.1:{self.port}/v1", timeout=10)
                self._connections.open, self._connections.port = connection, self.port
            try:
                connection.request("POST", path, body, headers)
                response = connection.getresponse()
                raw = response.read()
                return json.loads(raw) if response.status == 200 else None
            except (OSError, http.client.HTTPException, ValueError):
                connection.close()
                self._connections.open = None  # a server restarted or a connection timed out: once more
        return None
