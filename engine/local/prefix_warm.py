"""Reading a new context ahead on the local model (docs/design.md §10), so the next send only adds its message.

A fold, a resume, a model switch or a new system prompt changes the start of what the local model reads,
and on two cores it needs tens of seconds to read 4k tokens again: without this, the first word after
such a change comes that much later. llama.cpp keeps what it read last and reuses the longest common
prefix of the next request, so asking for one token of the new context as soon as it is known (while
the user types) leaves only the new message to read when they send.

One warm-up runs at a time, in a daemon thread, on the latest context asked for; `wait` lets a real
request go after it (the server would queue it behind anyway, and the work is the same prefix). Failures
are ignored: a warm-up is only ever a head start.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..messages import Message
from .stream import request_body
from .turns import local_turn

if TYPE_CHECKING:
    from ..providers.target import ModelTarget
    from ..tokens import TokenCounter

WARM_TIMEOUT = 600.0  # seconds one warm-up may take (a long context on a slow machine)
LONG_READ_SECONDS = 5.0  # a wait for the local model to read its context that is worth saying before it starts
READ_PER_CORE = {"smollm2": 90.0, "gemma": 185.0}
"""Prompt tokens a second per core (measured on 2 cores: SmolLM2-135M reads 4k tokens in 23 s, Gemma
270M in 11 s): how long a context the server has not read yet takes before the first word."""


_measured_rate: float | None = None
"""Prompt tokens a second the server last read at, from a read-ahead's own timings (None: not yet)."""
MEASURED_FROM = 256
"""Tokens a read must have for its rate to stand for the next ones (a short read is mostly overhead)."""


def progress_note(progress: Any) -> tuple[str, float] | None:
    """What llama.cpp's server says while it reads a prompt (`prompt_progress`: total, cache, processed,
    time_ms), as the wait's reason and the seconds the rest takes at the rate measured so far. None when
    it has read everything (the first word is next) or said nothing usable."""
    try:
        total, cached = int(progress.total), int(getattr(progress, "cache", 0) or 0)
        done, seconds = int(progress.processed), float(progress.time_ms) / 1000
    except (AttributeError, TypeError, ValueError):
        return None
    read = done - cached
    if done >= total or read <= 0 or seconds <= 0:
        return None
    left = (total - done) / (read / seconds)
    return f"read {done:,}/{total:,} tokens", left  # short: beside the seconds at 80 columns


def _remember_rate(answer: bytes) -> None:
    """Keep the read rate a read-ahead's answer reports (llama.cpp's `timings`), for the next estimate."""
    global _measured_rate
    try:
        timings = json.loads(answer).get("timings") or {}
        tokens, rate = int(timings.get("prompt_n", 0)), float(timings.get("prompt_per_second", 0))
    except (ValueError, TypeError, AttributeError):
        return
    if tokens >= MEASURED_FROM and rate > 0:
        _measured_rate = rate


def unread_from(read: Sequence[dict[str, Any]], context: Sequence[dict[str, Any]]) -> int:
    """The index of the first message of `context` the server has not read: llama.cpp reuses the longest
    common prefix of what it read last (`read`), so everything from the first difference is read again."""
    common = 0
    for had, wanted in zip(read, context, strict=False):
        if had != wanted:
            break
        common += 1
    return common


def read_seconds(tokens: int, model: str, cores: int) -> float:
    """About how long the local server takes to read `tokens` of prompt with `cores` threads: at the rate
    it last read at when known (a busy machine reads 4-5 times slower than the table says), else the table's."""
    rate = _measured_rate or READ_PER_CORE.get(model, 90.0) * max(1, cores)
    return tokens / rate


class PrefixWarmer:
    """Warms the local server's prompt cache with the newest context asked for, one at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: tuple[ModelTarget, list[dict[str, Any]]] | None = None
        self._active: ModelTarget | None = None
        self._idle = threading.Event()
        self._idle.set()
        self.seconds: float | None = None
        """How long the last warm-up took (what the next send saved)."""
        self.warmed = 0
        self.server_read: list[dict[str, Any]] = []
        """What the server read last, as far as we know (a warm-up asked for, a reply's context): what
        the next request does not pay for again."""

    def start(self, target: ModelTarget, messages: list[dict[str, Any]]) -> None:
        """Read `messages` ahead on `target` in the background (local targets only)."""
        if not target.backend.reads_ahead or target.api_base is None or not messages:
            return
        with self._lock:
            self.server_read = list(messages)
            self._pending = (target, messages)
            if not self._idle.is_set():
                return  # the running thread takes the newest context when it is done
            self._idle.clear()
        threading.Thread(target=self._run, daemon=True, name="prefix-warm").start()

    def read_estimate(
        self, messages: list[dict[str, Any]], counter: TokenCounter, model: str, cores: int
    ) -> str | None:
        """The tokens of `messages` the server has not read yet (a resume or a fold with no read-ahead: all of
        them), said when reading them takes a while; from now on the server holds `messages`."""
        unread = messages[unread_from(self.server_read, messages) :]
        self.server_read = list(messages)
        tokens = counter.count([Message.from_dict(m) for m in unread])
        seconds = read_seconds(tokens, model, cores)
        if seconds < LONG_READ_SECONDS:
            return None
        return f"the local model reads {tokens:,} tokens of context first, about {seconds:.0f} s"

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no warm-up runs (True) or `timeout` passes (False)."""
        return self._idle.wait(timeout)

    @property
    def running(self) -> bool:
        return not self._idle.is_set()

    def reading_for(self, target: ModelTarget) -> bool:
        """A warm-up runs (or waits) on `target`'s server: a request to it goes after that read. A request
        to any other model never waits for it (a switch to a hosted model waited 62 s for the local read)."""
        with self._lock:
            bases = {t.api_base for t in (self._pending[0] if self._pending else None, self._active) if t}
        return self.running and target.backend.reads_ahead and target.api_base in bases

    def set_aside(self) -> None:
        """Drop the warm-ups not started yet (the model they were for is no longer the one sent to); the
        running one ends on its own and is never waited for by a request to another model."""
        with self._lock:
            self._pending = None
            self.server_read = []

    def _run(self) -> None:
        while True:
            with self._lock:
                pending, self._pending = self._pending, None
                self._active = None if pending is None else pending[0]
                if pending is None:
                    self._idle.set()
                    return
            started = time.monotonic()
            if warm(*pending):
                self.seconds = time.monotonic() - started
                self.warmed += 1


def warm(target: ModelTarget, messages: list[dict[str, Any]]) -> bool:
    """One request for a single token of `messages`: the server reads (and keeps) the whole prompt."""
    if target.api_base is None:
        return False
    body = request_body(target, messages)
    body.update(stream=False, max_tokens=1)
    body.pop("stream_options", None)
    url = urlsplit(f"{target.api_base.rstrip('/')}/chat/completions")
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=WARM_TIMEOUT)
    try:
        headers = {"Authorization": f"Bearer {target.api_key or 'foldchat-no-key'}", "Content-Type": "application/json"}
        with local_turn(target.api_base):  # never beside another process's reply (local/turns.py)
            connection.request("POST", url.path, json.dumps(body).encode(), headers)
            response = connection.getresponse()
            answer = response.read()
        if response.status == 200:
            _remember_rate(answer)
        return response.status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
