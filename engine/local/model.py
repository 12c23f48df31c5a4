"""The embedded local model (docs/design.md §10): Gemma 3 270M, assembled once, served on 127.0.0.1.

The model file comes from `gguf.ensure_gguf` (assembled once, checksum verified). `LocalModelServer` starts
llama-cpp-python's OpenAI-compatible server as a child process on a free loopback port, waits until it
answers, and stops it when Foldchat exits; the child also exits by itself if its parent dies.

The child is started so that nothing in the user's shell can redirect it: a minimal environment (no
provider keys, none of the `HOST`/`PORT`/`API_KEY`/`CONFIG_FILE`/proxy variables llama-cpp-python or
the probe would read), a listening socket we bound on 127.0.0.1 and hand over (no port race), a random
per-session API key, `logits_all` off (kept logits cost ~1 MB per context token with Gemma's 262k
vocabulary), and `-P` with a neutral working directory so a `foldchat` folder in the user's working
directory cannot shadow the installed package. Bad `local.*` settings are caught before it starts.

Token counts use the model's own vocabulary (`count_text`); nothing here imports litellm (its import costs seconds).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import http.client
import importlib.util
import io
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from functools import cached_property
from pathlib import Path
from typing import IO

from ..config import LocalModelSettings
from ..errors import LocalModelError
from ..paths import cache_dir, create_private_file, private_file
from .gguf import Progress, ensure_gguf as ensure_gguf, no_progress  # ensure_gguf: where tests and benches look

LOCAL_ALIAS = "local"
SERVED_NAME = "foldchat-local"
"""The alias the server answers to, whichever model it serves."""
GGML_TYPE_Q8_0 = 8  # ggml's id for 8-bit blocks, as llama-cpp-python's --type_k/--type_v take it
# what the child may inherit: enough to run Python and its libraries, nothing that configures a server
REMOTE_COUNTS = 200
"""Counts asked of the server before this process loads the vocabulary itself (see `count_text`)."""
READY_WAIT = 10.0
"""Seconds one readiness request waits in the socket's queue before another is sent."""
CHILD_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "LD_LIBRARY_PATH", "PYTHONPATH")


AUTO_FORMAT = "auto"


def chat_format(settings: LocalModelSettings) -> str | None:
    """The chat format the server is started with: None for the model's own template (its GGUF's
    `tokenizer.chat_template`, which llama-cpp-python applies when no format is named)."""
    from ..transcript_prompt import FORMAT_NAME

    if settings.chat_format != AUTO_FORMAT:
        return settings.chat_format
    return FORMAT_NAME if settings.model == "gemma" and settings.model_path is None else None


def repeat_penalty(settings: LocalModelSettings) -> float:
    """The configured penalty, else what suits the model: a base model loops without a strong one."""
    if settings.repeat_penalty is not None:
        return settings.repeat_penalty
    return 1.3 if settings.model == "gemma" and settings.model_path is None else 1.1


def check_chat_format(name: str) -> None:
    """`name` must be Foldchat's format or one llama-cpp-python knows; an unknown one gives empty replies.

    Foldchat's own format is known without importing llama_cpp (~20 MB and a second in this process)."""
    from ..transcript_prompt import FORMAT_NAME

    if name in (FORMAT_NAME, AUTO_FORMAT):
        return
    from llama_cpp import llama_chat_format

    try:
        llama_chat_format.get_chat_completion_handler(name)
    except (ValueError, llama_chat_format.LlamaChatCompletionHandlerNotFoundException):
        raise LocalModelError(
            f"local.chat_format {name!r} is not a chat format llama-cpp-python knows "
            f"(the default is {FORMAT_NAME!r}; others: chatml, gemma, llama-2, mistral-instruct, ...)"
        ) from None


SERVER_MODULES = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette")  # llama-cpp-python[server]


def server_installed() -> bool:
    """Whether llama-cpp-python's server can run, found without importing it (the child imports it)."""
    return all(importlib.util.find_spec(name) is not None for name in SERVER_MODULES)


def default_threads() -> int:
    """Half the CPUs, at least one: the app shares the machine with the server, and llama.cpp's threads
    wait for each other at every step, so one preempted thread stalls them all. Measured on 2 busy cores:
    a short reply took 0.9-4 s with one thread, 0.7-20 s with two. It is the thread count of
    the prompt's evaluation too (`model_arguments`)."""
    return max(1, (os.cpu_count() or 2) // 2)


def kv_cache_arguments(settings: LocalModelSettings) -> list[str]:
    """An 8-bit KV cache for Gemma (half of ~18 KB per token of its window); SmolLM2's f16 cache is ~23 KB
    per token, 190 MB at 8k, and reads prompts twice as fast: 201 against 92 tokens/s here on 2 cores
    (flash attention on, 4k tokens; llama.cpp's CPU path dequantizes the cache at every step)."""
    if settings.model == "gemma" and settings.model_path is None:
        return ["--type_k", str(GGML_TYPE_Q8_0), "--type_v", str(GGML_TYPE_Q8_0)]
    return []


def batch_threads() -> int:
    """Every CPU, for reading prompts (see `model_arguments`)."""
    return max(1, os.cpu_count() or 1)


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


def loopback_listener() -> socket.socket:
    """A socket listening on 127.0.0.1 on a port the kernel picked: ours until the child takes it over."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def model_arguments(settings: LocalModelSettings, model_path: Path, keep_all_logits: bool = False) -> list[str]:
    """llama-cpp-python's server flags for the model `settings` describe (the child's own flags aside)."""
    threads = settings.threads or default_threads()
    chosen = chat_format(settings)
    return [
        *(["--chat_format", chosen] if chosen else []),
        "--model", str(model_path), "--model_alias", SERVED_NAME,
        # generation on half the cores (a preempted thread stalls the others at every token);
        # a prompt on every core: long reads (a resumed or folded context, read ahead while the user types
        # and the UI is idle) are where the seconds go, and they halve with two threads
        "--n_ctx", str(settings.context_size), "--n_threads", str(threads),
        "--n_threads_batch", str(settings.threads or batch_threads()),
        "--logits_all", str(keep_all_logits), "--verbose", "False", "--flash_attn", "True",
        *kv_cache_arguments(settings),
    ]  # fmt: skip


class LocalModelServer:
    """One llama-cpp-python server child process, owned by this Foldchat process."""

    keep_all_logits = False  # llama-cpp-python's default is True; only bench/local_memory_bench.py flips it

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
        self._vocab_lock = threading.Lock()  # one load, whichever thread counts first
        # a start in a worker thread and the app's quit race: the process is made and killed under this
        # lock, and once closed nothing starts again (a server started after /quit outlived the app)
        self._process_lock = threading.Lock()
        self.closed = False
        self._ready = False  # the server answered us: it can count while the vocabulary loads
        self._remote_counts = 0

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalModelError("the local model server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

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
                "the local model needs llama-cpp-python's server: pip install 'foldchat[local]' (make run does it)"
            )
        check_chat_format(self.settings.chat_format)
        bypass_proxies_for_loopback()
        self.model_path = ensure_gguf(self.settings, progress)
        progress("starting local model", 0, 1)
        listener = loopback_listener()
        self.port = int(listener.getsockname()[1])
        command = [sys.executable, "-P", "-m", "foldchat.engine.local.server", "--listen_fd", str(listener.fileno())]
        command += model_arguments(self.settings, self.model_path, self.keep_all_logits)
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
                    env=child_environment(self.api_key), cwd=cache_dir(), pass_fds=(listener.fileno(),),
                    start_new_session=keep > 0,
                )  # fmt: skip
        finally:
            listener.close()  # the child holds its own copy
        atexit.register(self.stop)

    def _server_key(self) -> str:
        """What a kept-alive server must share with us to be reused: model, window, threads, format."""
        parts = [sys.executable, str(self.model_path), self.settings.context_size, self.settings.threads]
        parts += [self.settings.chat_format, self.keep_all_logits, self.settings.keep_alive]
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
        """Wait until the server answers with our key and lists our model alias.

        The socket listens from before the child starts, so a request queues there until the server
        serves and is answered at that moment: no polling interval is added to a cold start. A child
        that dies closes the socket, which fails the queued request at once.
        """
        deadline = time.monotonic() + self.settings.startup_timeout
        request = urllib.request.Request(f"{self.base_url}/models", headers={"Authorization": f"Bearer {self.api_key}"})
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # proxies must not divert it
        while (left := deadline - time.monotonic()) > 0:
            if self.process is None:  # stopped meanwhile (the app quit while the model loaded): stop waiting
                raise LocalModelError("the local model server was stopped while it started")
            if self.process.poll() is not None:
                raise LocalModelError(f"the local model server exited (code {self.process.returncode}): {self._tail()}")
            try:
                with direct.open(request, timeout=min(left, READY_WAIT)) as response:
                    served = [m.get("id") for m in json.load(response).get("data", [])]
                if SERVED_NAME in served:
                    return
                self.stop()
                raise LocalModelError(f"the local model server answered with models {served}, not {SERVED_NAME}")
            except TimeoutError:
                continue  # still loading: ask again (the old request is answered too, and dropped)
            except (urllib.error.URLError, ConnectionError, json.JSONDecodeError, AttributeError):
                time.sleep(0.05)  # the child is gone (the check above says why) or answered oddly
        self.stop()
        raise LocalModelError(
            f"the local model server did not answer within {self.settings.startup_timeout:.0f} s: {self._tail()}"
        )

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
            # killed, not asked: it holds nothing to save (the model file is only read), and uvicorn's
            # graceful shutdown plus freeing the model cost ~0.2 s at the end of every `ask`
            process.kill()
            process.wait()
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    @cached_property
    def _vocab(self):  # type: ignore[no-untyped-def]
        from llama_cpp import Llama

        path = self.model_path or ensure_gguf(self.settings)
        with contextlib.redirect_stderr(io.StringIO()):  # llama.cpp's load warnings are not for users
            return Llama(model_path=str(path), vocab_only=True, verbose=False)

    def count_text(self, text: str) -> int:
        """Tokens in `text` by the model's own vocabulary (no server needed).

        A server that answers counts (same vocabulary, same rules: `local_server.COUNT_PATH`; a few ms
        each), so an `ask` or a short chat never loads llama_cpp and the vocabulary here (~1 s, ~65 MB).
        Past `REMOTE_COUNTS` counts (a long conversation opening) the vocabulary loads in the background,
        and from then on each count costs microseconds in-process. With no server answering yet, the
        vocabulary loads now.
        """
        if "_vocab" not in self.__dict__ and self._ready:
            counted = self.count_remotely([text])
            if counted is not None:
                self._remote_counts += 1
                if self._remote_counts == REMOTE_COUNTS:
                    self.load_vocabulary_soon()
                return counted[0]
        with self._vocab_lock:
            vocab = self._vocab
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _answers(self) -> bool:
        """The server answers us (our key): asked on the count route, which answers beside a running reply
        (`/models` waits for the model lock behind it)."""
        return self.count_remotely([]) == []

    def count_remotely(self, texts: list[str]) -> list[int] | None:
        """The server's counts for `texts`; None when it cannot answer (the caller counts itself)."""
        from .server import COUNT_PATH
        from .stream import connection_to

        body = json.dumps({"texts": texts}).encode()
        headers = {"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"}
        # http.client, not urllib: no opener to build and no proxy to consult (none may see the key), half
        # the CPU of a count, and a reply is counted on every turn
        connection = connection_to(self.base_url, timeout=10)
        try:
            connection.request("POST", COUNT_PATH, body, headers)
            response = connection.getresponse()
            if response.status != 200:
                return None
            counts = json.loads(response.read())["counts"]
        except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError, LocalModelError):
            return None
        finally:
            connection.close()
        return [int(c) for c in counts] if isinstance(counts, list) and len(counts) == len(texts) else None

    def load_vocabulary_soon(self) -> None:
        """Load the vocabulary in a background thread; counts go to the server meanwhile."""
        threading.Thread(target=self._load_quietly, daemon=True, name="local-vocabulary").start()

    def _load_quietly(self) -> None:
        with contextlib.suppress(Exception), self._vocab_lock:  # a failure shows on the first real count
            self._vocab  # noqa: B018
