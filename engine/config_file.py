"""The config file and the `FOLDCHAT_*` variables as they are, before pydantic-settings reads them.

Where the file is and its checks (a regular file, UTF-8, valid TOML) live here so that a command which
reads stored conversations can learn where the database is without building the whole `Settings`
(pydantic-settings is most of a second's start-up on a slow machine): `settings_free_database` answers
only when nothing but the database is configured, so no setting it skips could have been invalid.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import untrusted_json
from .errors import ConfigError, FoldchatError
from .paths import default_config_file
from .regular_file import read_regular

ENV_PREFIX = "FOLDCHAT_"
MAX_CONFIG_BYTES = 1024 * 1024  # a settings file; bigger is a mistake, not a config
DATABASE_VARIABLE = f"{ENV_PREFIX}DATABASE"
# FOLDCHAT_* variables that are not settings: where the config is, debugging, the local server's parent
NOT_SETTINGS = frozenset({f"{ENV_PREFIX}CONFIG", f"{ENV_PREFIX}DEBUG", f"{ENV_PREFIX}PARENT_PID"})


def config_path(explicit: str | Path | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get("FOLDCHAT_CONFIG"):
        return Path(os.environ["FOLDCHAT_CONFIG"]).expanduser()
    return default_config_file()


def read_config_file(explicit: str | Path | None = None) -> tuple[Path, dict[str, Any]]:
    """The config file's path and its TOML (empty when there is no file); one-line `ConfigError` when a
    named file is missing or the file cannot be read as TOML."""
    path = config_path(explicit)
    if (explicit or os.environ.get("FOLDCHAT_CONFIG")) and not path.exists():
        origin = "" if explicit else " (named by FOLDCHAT_CONFIG)"
        raise ConfigError(f"config file {path}{origin} does not exist")
    if not path.exists() or str(path) == os.devnull:  # /dev/null is a way to say "no config file"
        return path, {}
    import tomllib  # only when there is a file to read

    try:  # checked by us first: a pipe or /dev/zero as config.toml would hang the reader
        return path, tomllib.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (TOML files are UTF-8)") from None
    except FoldchatError as error:
        raise ConfigError(f"config file {error}") from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None


def refuse_deep_environment() -> None:
    """A `FOLDCHAT_*` value nested deeper than any section is refused before pydantic parses it as JSON.

    (Its JSON parser recurses: a few thousand brackets raise RecursionError, not a validation error.)
    """
    for name, value in os.environ.items():
        if name.upper().startswith(ENV_PREFIX) and untrusted_json.depth(value) > untrusted_json.MAX_DEPTH:
            raise ConfigError(f"{name} is not valid: nested too deeply to be a settings section")


def settings_free_database(explicit: str | Path | None = None) -> Path | None:
    """The configured database path, or None when it is not configured (the default then), as `Settings`
    would give it, when the file and the environment set nothing but `database`.

    Raises `SettingsNeeded` when they set anything else (or a database that is not a string): only the
    whole `Settings` can say whether that is valid. The file's own problems are the same `ConfigError`s.
    """
    refuse_deep_environment()
    _, values = read_config_file(explicit)
    variables = [name for name in os.environ if name.upper().startswith(ENV_PREFIX)]
    if set(values) - {"database"} or set(map(str.upper, variables)) - NOT_SETTINGS - {DATABASE_VARIABLE}:
        raise SettingsNeeded
    database = [os.environ[name] for name in variables if name.upper() == DATABASE_VARIABLE]
    if len(database) > 1:  # the same variable in two spellings: which one pydantic-settings takes is its own
        raise SettingsNeeded
    value = database[0] if database else values.get("database")  # the environment wins over the file
    if value is not None and not isinstance(value, str):
        raise SettingsNeeded
    return Path(value) if value is not None else None


class SettingsNeeded(Exception):
    """The configuration sets more than the database: load (and so check) the whole `Settings`."""
