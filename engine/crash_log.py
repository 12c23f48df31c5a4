"""Where an unexpected error goes: the whole traceback to a private log file, one line to the user.

A crash of the app must never look like a clean exit (status 0) and never dump a traceback over the
user's terminal; the log keeps what a bug report needs.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from platformdirs import PlatformDirs


def crash_log_path() -> Path:
    return Path(PlatformDirs("foldchat", appauthor=False).user_log_dir) / "crash.log"


def write_crash_log(error: BaseException, path: Path | None = None) -> Path:
    """Append `error`'s traceback to the crash log (dir 0700, file 0600); returns the log's path."""
    path = path or crash_log_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as log:
        log.write(f"--- {stamp}\n{text}\n")
    os.chmod(path, 0o600)
    return path


def crash_line(error: BaseException, log: Path) -> str:
    """The one line the user sees."""
    from .untrusted_text import visible

    return visible(f"foldchat: internal error: {type(error).__name__}: {error} (details in {log})")
