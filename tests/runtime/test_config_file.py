"""Where the database is, read without the settings' models (engine/config_file.py), is where the whole
`Settings` put it; anything more in the config means the whole settings are loaded and checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from foldchat.engine import Archive, ConfigError, OpenOptions
from foldchat.engine.config import load_settings
from foldchat.engine.config_file import SettingsNeeded, settings_free_database


@pytest.fixture(autouse=True)
def no_foldchat_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper().startswith("FOLDCHAT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config-here"))


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "variables"),
    [
        (None, {}),  # no file at all: the default
        ("", {}),
        ("# only a comment\n", {}),
        ('database = "from-file.db"\n', {}),
        ('database = "~/tilde.db"\n', {}),  # as given: neither reader expands it
        ('database = ""\n', {}),
        ('database = "from-file.db"\n', {"FOLDCHAT_DATABASE": "from-env.db"}),  # the environment wins
        (None, {"FOLDCHAT_DATABASE": "from-env.db"}),
        (None, {"foldchat_database": "lower-case.db"}),  # pydantic-settings ignores the case of names
        (None, {"FOLDCHAT_DEBUG": "1", "FOLDCHAT_DATABASE": "debugging.db"}),
    ],
)
def test_the_database_is_where_the_whole_settings_put_it(tmp_path, monkeypatch, text, variables):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    explicit = config(tmp_path, text) if text is not None else None
    assert settings_free_database(explicit) == load_settings(explicit).database


@pytest.mark.parametrize(
    ("text", "variables"),
    [
        ('database = "x.db"\ntheme = "textual-ansi"\n', {}),
        ("[fold]\ntrigger_ratio = 2\n", {}),  # invalid: only the whole settings can say so
        ('DATABASE = "x.db"\n', {}),  # a spelling pydantic-settings accepts: left to it
        ("database = 3\n", {}),
        ("", {"FOLDCHAT_FOLD__TRIGGER_RATIO": "2"}),
        ("", {"FOLDCHAT_THEME": "textual-ansi"}),
        ("", {"FOLDCHAT_DATABASE": "a.db", "foldchat_database": "b.db"}),
    ],
)
def test_anything_more_than_the_database_needs_the_whole_settings(tmp_path, monkeypatch, text, variables):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsNeeded):
        settings_free_database(config(tmp_path, text))


@pytest.mark.parametrize(
    "text", ["not = [toml", "[fold]\ntrigger_ratio = 2\n", "database = 3\n", 'database = "x.db"\nnope = 1\n']
)
def test_an_archive_of_a_bad_config_fails_as_the_settings_do(tmp_path, text):
    path = config(tmp_path, text)
    with pytest.raises(ConfigError) as from_settings:
        load_settings(path)
    with pytest.raises(ConfigError) as from_archive:
        Archive.open(OpenOptions(config=path))
    assert str(from_archive.value) == str(from_settings.value)


def test_a_named_config_that_is_missing_is_the_same_error(tmp_path, monkeypatch):
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError) as from_settings:
        load_settings()
    with pytest.raises(ConfigError) as from_archive:
        Archive.open()
    assert str(from_archive.value) == str(from_settings.value) and "named by FOLDCHAT_CONFIG" in str(from_archive.value)


def test_an_archive_opens_the_configured_database(tmp_path):
    path = config(tmp_path, f'database = "{tmp_path / "kept.db"}"\n')
    with Archive.open(OpenOptions(config=path)) as archive:
        assert archive.conversations() == []
    assert archive.database == tmp_path / "kept.db" and archive.database.exists()
