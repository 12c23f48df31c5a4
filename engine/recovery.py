"""Text that could not be saved in the database (a full disk) goes to a file instead, so nothing the user
saw is lost. Tried in order: the data dir, the cache dir, the system temp dir (often another filesystem).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from .errors import StorageError
from .paths import cache_dir, create_private_file, own_folder, recovery_dir


def _candidates() -> list[Path]:
    places = []
    for make in (recovery_dir, lambda: own_folder(cache_dir() / "unsaved")):
        try:
            places.append(make())
        except StorageError:
            continue  # a full disk may refuse even a directory
    places.append(Path(tempfile.gettempdir()))
    return places


def save_unsaved_text(text: str, label: str) -> Path | None:
    """Write `text` to a new private file named after `label`; its path, or None if no place took it."""
    stem = f"foldchat-{label}-{time.strftime('%Y%m%d-%H%M%S')}"
    for directory in _candidates():
        try:
            return create_private_file(directory, stem, ".txt", text.encode("utf-8"))
        except OSError:
            continue
    return None
