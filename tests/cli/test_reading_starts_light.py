"""`list`, `list --search` and `show` read SQLite and print: they load neither the settings' models
(pydantic, pydantic-settings) nor litellm, tiktoken or Textual, unless the config sets more than where the
database is (then it is checked whole, and a bad one is the usual one-line error). Nor do they load what
only other commands use: another command's module, the input checks, the provider modules, the importer
(each was on these paths once; how long a command takes is bench/cli_bench.py's to say, not a test's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pydantic", "pydantic_settings", "foldchat.engine.config", "litellm", "tiktoken", "textual")
OTHER_COMMANDS = (
    "foldchat.cli.ask_cmd", "foldchat.cli.compress_cmd", "foldchat.cli.import_cmd", "foldchat.cli.models_cmd",
    "foldchat.cli.inputs", "foldchat.engine.providers", "foldchat.engine.importer",
)  # fmt: skip

# each command in turn in one process, then what of WATCHED each one loaded (modules stay loaded: the first wins)
PROBE = """
import json, sys
from foldchat.cli.main import main

WATCHED = {watched!r}
loaded = {{}}
for argv in {commands!r}:
    status = main(argv)
    assert status == 0, (argv, status)
    loaded[" ".join(argv)] = sorted(m for m in sys.modules if any(m == w or m.startswith(w + ".") for w in WATCHED))
print(json.dumps(loaded))
"""
COMMANDS = [["list"], ["list", "--search", "ferry"], ["show", "1"]]
SENDING = ("foldchat.engine.recall_index", "foldchat.engine.recall", "foldchat.engine.recall_passages", "foldchat.engine.fold")
"""What recall at a send and folding use: reading a conversation with no fold loads none of it (what was
recalled is read with `recalled`; a fold's layout only where a fold is shown)."""
MESSAGE_TYPES = ("foldchat.engine.messages", "foldchat.engine.attachments", "dataclasses")
"""What a message is made of: listing and searching read no message (the dataclasses module and defining the
message's classes were ~15 ms of `foldchat list`'s ~0.11 s), `show` does."""


def environment(tmp_path: Path, config: str = os.devnull) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FOLDCHAT_") and not k.endswith("_API_KEY")}
    return {**clean, "FOLDCHAT_DATABASE": str(tmp_path / "db.sqlite"), "FOLDCHAT_CONFIG": config,
            "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip


def loaded_by_reading(env: dict[str, str]) -> dict[str, list[str]]:
    conversation = [{"role": "user", "content": "the ferry"}, {"role": "assistant", "content": "leaves at 9"}]
    imported = subprocess.run(
        [sys.executable, "-m", "foldchat", "import", "-"], input=json.dumps(conversation), capture_output=True,
        text=True, env=env, timeout=120,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    probe = PROBE.format(watched=HEAVY + OTHER_COMMANDS + MESSAGE_TYPES + SENDING, commands=COMMANDS)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def loaded_with_no_config(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    return loaded_by_reading(environment(tmp_path_factory.mktemp("reading")))


def of(names: tuple[str, ...], loaded: dict[str, list[str]]) -> dict[str, list[str]]:
    """Of what each command loaded, the modules named in `names` and their submodules."""
    inside = tuple(f"{name}." for name in names)
    return {argv: [m for m in modules if m in names or m.startswith(inside)] for argv, modules in loaded.items()}


def test_listing_searching_and_showing_load_no_settings_models_and_no_model_library(loaded_with_no_config):
    assert of(HEAVY, loaded_with_no_config) == {" ".join(argv): [] for argv in COMMANDS}


def test_listing_searching_and_showing_load_nothing_only_other_commands_use(loaded_with_no_config):
    assert of(OTHER_COMMANDS, loaded_with_no_config) == {" ".join(argv): [] for argv in COMMANDS}


def test_a_config_that_sets_more_than_the_database_is_still_checked_whole(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'database = "{tmp_path / "db.sqlite"}"\ntheme = "textual-ansi"\n')
    loaded = loaded_by_reading(environment(tmp_path, str(config)))
    assert "foldchat.engine.config" in loaded["list"] and "litellm" not in loaded["list"]


def test_listing_and_searching_build_no_message(loaded_with_no_config):
    loaded = of(MESSAGE_TYPES, loaded_with_no_config)
    assert (loaded["list"], loaded["list --search ferry"]) == ([], [])
    assert "foldchat.engine.messages" in loaded["show 1"]  # the probe sees them load where messages are read


def test_reading_loads_no_dataclasses(loaded_with_no_config):
    """Of `show`'s ~0.1 s, `import dataclasses` was ~10 ms (it loads inspect, ast, dis and tokenize): a message
    and a tool call are written-out value classes, and nothing else a reading command builds is a dataclass."""
    assert of(("dataclasses",), loaded_with_no_config) == {" ".join(argv): [] for argv in COMMANDS}


def test_reading_loads_neither_the_recall_index_nor_the_fold_code(loaded_with_no_config):
    assert of(SENDING, loaded_with_no_config) == {" ".join(argv): [] for argv in COMMANDS}


def test_a_command_builds_the_parser_of_no_other_command():
    """Seven subcommand parsers were built on every start (~8 ms: each looks its words up in gettext's
    catalogues on disk); the one given is built, `foldchat --help` lists all without building any."""
    import argparse

    from foldchat.cli.main import build_parser

    parser = build_parser()
    parser.parse_args(["show", "1"])
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert [name for name, built in commands.choices.items() if isinstance(built, argparse.ArgumentParser)] == ["show"]
    assert "compress" in parser.format_help()  # still listed, with its help line
