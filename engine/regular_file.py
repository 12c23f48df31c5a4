"""Reading a file Foldchat did not write: only a regular file, and never more than a bound.

`open()` on a FIFO waits for a writer, and `/dev/zero` never ends: either would hang whoever reads it
(the app at start-up, a send with `@path`). So the file is opened without waiting (`O_NONBLOCK`), checked
to be a regular file on the open descriptor (no race with a swapped path), and read at most `limit + 1`
bytes, so a file that is too big is refused without being read whole.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InputTooLarge, UsageError


class NotARegularFile(UsageError):
    """The path names a pipe, a device, a socket or a folder: nothing Foldchat reads."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: str | Path, limit: int, *, what: str | None = None) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises `NotARegularFile` (a pipe, device, socket or folder), `InputTooLarge` (over `limit`), or
    `OSError` (missing, no permission) for the caller to word.
    """
    name = what or str(path)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"{name} is {_kind(mode)}: only regular files are read")
        os.set_blocking(descriptor, True)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0 and (chunk := os.read(descriptor, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputTooLarge(f"{name} is larger than {limit:,} bytes")
    return data


def is_regular_file(path: str | Path) -> bool:
    """Whether `path` names a regular file (following links), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
