"""The `max_input_bytes` setting, read without building the whole `Settings` when nothing but the database
is configured (then every other setting is its default): `foldchat compress` checks its input's size without
loading pydantic-settings. A config that sets more is loaded whole, so its mistakes are the usual errors."""

from __future__ import annotations

from pathlib import Path

from .config_file import SettingsNeeded, settings_free_database
from .limits import DEFAULT_MAX_INPUT_BYTES


def max_input_bytes(explicit: str | Path | None = None) -> int:
    """The largest file, stdin or prompt a command reads, as `load_settings(explicit).max_input_bytes`."""
    try:
        settings_free_database(explicit)  # raises when more than the database is configured
    except SettingsNeeded:
        from .config import load_settings

        return load_settings(explicit).max_input_bytes
    return DEFAULT_MAX_INPUT_BYTES
