"""Where Foldchat keeps things, from platformdirs; created on first use, never at import."""

from __future__ import annotations

from pathlib import Path

from platformdirs import PlatformDirs

_DIRS = PlatformDirs("foldchat", appauthor=False)


def default_config_file() -> Path:
    return Path(_DIRS.user_config_dir) / "config.toml"


def data_dir() -> Path:
    path = Path(_DIRS.user_data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    path = Path(_DIRS.user_cache_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_database() -> Path:
    return data_dir() / "foldchat.db"
