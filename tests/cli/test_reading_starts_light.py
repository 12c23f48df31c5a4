"""`list`, `list --search` and `show` read SQLite and print: they load neither the settings' models
(pydantic, pydantic-settings) nor litellm, tiktoken or Textual, unless the config sets more than where the
database is (then it is checked whole, and a bad one is the usual one-line error)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("pydantic", "pydantic_settings", "foldchat.engine.config", "litellm", "tiktoken", "textual")

# each command in turn in one process, then what of HEAVY each one loaded (modules stay loaded: the first wins)
PROBE = """
import json, sys
from foldchat.cli.main import main

HEAVY = {heavy!r}
loaded = {{}}
for argv in {commands!r}:
    status = main(argv)
    assert status == 0, (argv, status)
    loaded[" ".join(argv)] = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY or m in HEAVY)
print(json.dumps(loaded))
"""
COMMANDS = [["list"], ["list", "--search", "ferry"], ["show", "1"]]


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
    probe = PROBE.format(heavy=HEAVY, commands=COMMANDS)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_listing_searching_and_showing_load_no_settings_models_and_no_model_library(tmp_path):
    assert loaded_by_reading(environment(tmp_path)) == {" ".join(argv): [] for argv in COMMANDS}


def test_a_config_that_sets_more_than_the_database_is_still_checked_whole(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'database = "{tmp_path / "db.sqlite"}"\ntheme = "textual-ansi"\n')
    loaded = loaded_by_reading(environment(tmp_path, str(config)))
    assert "foldchat.engine.config" in loaded["list"] and "litellm" not in loaded["list"]
