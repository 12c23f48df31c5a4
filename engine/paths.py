"""Where Foldchat keeps things, from platformdirs; created on first use, never at import.

Private by default (docs/design.md §9): Foldchat's own directories are 0700 and its files 0600 whatever the
umask, and an older install with looser modes is tightened the next time a directory is asked for.
Only directories Foldchat owns are tightened: the parents of a configured path are the user's.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

from .errors import StorageError

_DIRS = PlatformDirs("foldchat", appauthor=False)

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) and make `path` itself 0700; returns it.

    Raises `StorageError` with the reason when it cannot be created (a read-only or foreign parent).
    """
    try:
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        if path.stat().st_mode & 0o777 != PRIVATE_DIR_MODE:
            path.chmod(PRIVATE_DIR_MODE)
    except OSError as error:
        raise StorageError(f"cannot create the directory {path}: {error.strerror or error}") from None
    return path


def own_folder(path: Path) -> Path:
    """`private_dir` for a folder Foldchat makes inside its own (exports, unsaved), refused when it is a
    symbolic link: making it 0700 would close whatever folder the link points to (a shared one, a home)."""
    if path.is_symlink():
        raise StorageError(
            f"{path} is a symbolic link: Foldchat writes only to a folder of its own there and will not change "
            "the permissions of the one it points to; remove the link"
        )
    return private_dir(path)


def private_file(path: Path) -> Path:
    """Make an existing file 0600 (a no-op for a missing file); returns it.

    For files other code writes (the local model's GGUF, its log): call it once the file exists.
    """
    try:
        mode = os.stat(path, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return path
    except OSError as error:
        raise StorageError(f"cannot read {path}: {error.strerror or error}") from None
    if mode & 0o777 != PRIVATE_FILE_MODE and not os.path.islink(path):
        try:
            os.chmod(path, PRIVATE_FILE_MODE)
        except OSError as error:
            raise StorageError(f"cannot make {path} private: {error.strerror or error}") from None
    return path


def default_config_file() -> Path:
    return Path(_DIRS.user_config_dir) / "config.toml"


def data_dir() -> Path:
    return private_dir(Path(_DIRS.user_data_dir))


def cache_dir() -> Path:
    return private_dir(Path(_DIRS.user_cache_dir))


def export_dir() -> Path:
    """Where exports go unless told otherwise: private, like the conversations they hold."""
    return own_folder(data_dir() / "exports")


def recovery_dir() -> Path:
    """Where text that could not be saved in the database is written instead (a full disk)."""
    return own_folder(data_dir() / "unsaved")


def default_database() -> Path:
    return data_dir() / "foldchat.db"


def create_private_file(directory: Path, stem: str, suffix: str, data: bytes) -> Path:
    """Write `data` to a new 0600 file `stem{suffix}` in `directory` (`stem-2{suffix}`, ... when taken).

    Never overwrites and never follows a symlink: `O_CREAT | O_EXCL | O_NOFOLLOW` fails on any existing
    name, a link included, and the next name is tried. OSError (permissions, a full disk) propagates.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for attempt in range(1, 10_000):
        path = directory / (f"{stem}{suffix}" if attempt == 1 else f"{stem}-{attempt}{suffix}")
        try:
            descriptor = os.open(path, flags, PRIVATE_FILE_MODE)
        except FileExistsError:
            continue
        try:
            os.fchmod(descriptor, PRIVATE_FILE_MODE)  # whatever the umask
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
        except OSError:
            path.unlink(missing_ok=True)  # no half-written file left behind
            raise
        return path
    raise FileExistsError(f"{directory} already holds {stem}{suffix} and 9,998 numbered copies")
