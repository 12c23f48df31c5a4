"""One request at a time to a local model server, across processes.

The local server answers one completion at a time; a second one sent while the first streams
ends the first early ("the stream ended before the model finished"). Two `foldchat ask`s against a
kept-alive server broke each other in 5 of 5 tries. Every completion sent to a local server (replies,
summaries, warm-ups) therefore holds an advisory file lock named after the server's port; a request that
finds it taken waits its turn, and the face says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from ..paths import cache_dir, private_dir

POLL_SECONDS = 0.1
WAITING = "the local model is answering another request (another foldchat?); waiting for its turn"
_in_process = threading.Lock()  # flock is per open file: threads of one process need their own lock


class LocalTurn:
    """The lock for one local server (by the port in `api_base`)."""

    def __init__(self, api_base: str | None) -> None:
        port = urlsplit(api_base or "").port or 0
        self.path: Path = private_dir(cache_dir()) / f"local-{port}.lock"
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        if not _in_process.acquire(blocking=False):
            return False
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            _in_process.release()
            return False
        self._fd = fd
        return True

    async def acquire(self) -> None:
        """Wait for the turn, polling (cancel-safe: nothing is left holding the lock)."""
        while not self.try_acquire():
            await asyncio.sleep(POLL_SECONDS)

    def acquire_blocking(self) -> None:
        """The same, for a worker thread (a summary or a warm-up)."""
        while not self.try_acquire():
            threading.Event().wait(POLL_SECONDS)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            _in_process.release()


@contextlib.contextmanager
def local_turn(api_base: str | None) -> Iterator[None]:
    """Hold the local server's turn for a blocking call (waits for it)."""
    turn = LocalTurn(api_base)
    turn.acquire_blocking()
    try:
        yield
    finally:
        turn.release()
