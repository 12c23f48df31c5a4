"""Opening the database file: private (0600 whatever the umask), WAL, foreign keys, a busy timeout, and
text UTF-8 cannot encode stored repaired rather than refused; SQLite failures as one-line errors."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DiskFull, StorageError
from ..untrusted_text import whole_text

BUSY_TIMEOUT_SECONDS = 10.0
_SQLITE_FULL = 13


def connect(path: Path) -> sqlite3.Connection:
    """A connection to `path` (created with its folder when missing), in WAL mode with foreign keys on."""
    create_folder(path)
    try:
        db = sqlite3.connect(
            path,
            timeout=BUSY_TIMEOUT_SECONDS,
            isolation_level=None,
            check_same_thread=False,
            factory=_TextSafeConnection,
        )
    except sqlite3.Error as error:
        raise StorageError(f"cannot open the database {path}: {error}") from None
    try:
        db.row_factory = sqlite3.Row
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]  # creates a new file
        # private before -wal and -shm exist: SQLite gives them the database file's mode
        tighten(path)
        if mode != "wal":  # switching needs the write lock
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as error:
        db.close()
        raise storage_error(f"cannot open the database {path}", error) from None
    return db


class _TextSafeConnection(sqlite3.Connection):
    """A connection that stores text UTF-8 cannot encode (lone surrogates, see untrusted_text.py) with them
    repaired instead of refusing the row: a reply, an import or a title holding one was lost with a
    UnicodeEncodeError. Binding fails before the statement runs, so the retry is the only write.
    (`executemany` is left alone: it writes the rows before a bad one, so a retry would write them
    twice; the store passes it numbers only.)"""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except UnicodeEncodeError:
            return super().execute(sql, _repaired(parameters))


def _repaired(parameters: Any) -> Any:
    if isinstance(parameters, Mapping):
        return {key: whole_text(v) if isinstance(v, str) else v for key, v in parameters.items()}
    return [whole_text(v) if isinstance(v, str) else v for v in parameters]


def create_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise StorageError(f"cannot create the folder of the database {path}: {error.strerror or error}") from None


def tighten(path: Path) -> None:
    """New files and those of an older install (0644) become 0600."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            mode = os.stat(name).st_mode & 0o777
            if mode & 0o077:
                os.chmod(name, mode & 0o700)
        except (FileNotFoundError, PermissionError):
            continue  # gone, or a file we may not change (read-only, someone else's): use it as it is


def storage_error(doing: str, error: sqlite3.Error) -> StorageError:
    """A one-line `StorageError` for a SQLite failure; a full disk says so plainly."""
    if getattr(error, "sqlite_errorcode", None) == _SQLITE_FULL:
        return DiskFull(f"{doing}: the disk is full (SQLite: {error}); free some space and try again")
    return StorageError(f"{doing}: {error}")


def pid_alive(pid: int | None) -> bool:
    """Whether process `pid` (a streaming reply's owner) still runs."""
    if not pid:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
