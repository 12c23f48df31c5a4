"""Shared test setup: offline litellm, the synthetic conversations from bench/, an isolated home, every test
folder importable, the `fake` fixture (an OpenAI-format server on 127.0.0.1) and `home` (a config and
database that point at it)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from servers.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent


_RUN_FOLDER = "FOLDCHAT_TESTS_RUN_FOLDER"
"""The run's folder of scratch homes, made by its first process (pytest, or xdist's controller) and handed
to the workers it starts: the process that made it removes it whole, so a worker stopped before its own
clean-up (xdist kills one that is slow to exit, as on a loaded machine) leaves nothing behind either."""
MAKES_THE_RUN_FOLDER = _RUN_FOLDER not in os.environ
if MAKES_THE_RUN_FOLDER:
    os.environ[_RUN_FOLDER] = tempfile.mkdtemp(prefix="foldchat-tests-home-")


def _scratch_home() -> Path:
    """A home of the test process's own: databases, caches, the local model's files, configs and the shells
    the tmux tests start (their history) land here, never in the user's real home."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=os.environ[_RUN_FOLDER]))
    os.environ["HOME"] = str(home)
    for variable, folder in (
        ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache"),
        ("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
    ):  # fmt: skip
        os.environ[variable] = str(home / folder)
    os.environ["HISTFILE"] = os.devnull
    return home


SCRATCH_HOME = _scratch_home()
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(ROOT / "tests"))
# Test modules import each other by basename (`from test_session_folds import open_session`), across folders
# (tests/engine/fold/ imports from tests/engine/), and pytest's prepend import mode only puts the folders of
# the files it collects on sys.path: with every folder that holds test modules on it, such an import works
# whichever single file or folder is run. Test module basenames are therefore unique under tests/.
for _folder in sorted({path.parent for path in (ROOT / "tests").rglob("test_*.py")}):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked `slow` (minutes on the real local model) run first, the rest in their order: make test
    gives each of two workers a file at a time, and the 3-minute one, collected midway, ended the run alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # a stable sort: False (slow) first


def pytest_unconfigure(config: pytest.Config) -> None:
    """The scratch home goes with the run that made it: its caches alone (the local model's GGUF, the
    parsed encodings) are 250 MB, left in the temp folder by every run before."""
    shutil.rmtree(os.environ[_RUN_FOLDER] if MAKES_THE_RUN_FOLDER else SCRATCH_HOME, ignore_errors=True)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A loopback OpenAI-format server (tests/servers/fake_openai.py), stopped after the test."""
    from servers.fake_openai import FakeOpenAI  # importable once tests/ is on sys.path (above)

    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def home(tmp_path: Path, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f"""
request_timeout = 2
max_retries = 2

[models.fake]
model = "openai/fake-model"
api_base = "{fake.base_url}"
api_key_env = "FAKE_API_KEY"
context_window = 16000

[models.selfhosted]
model = "openai/fake-model"
api_base = "{fake.base_url}"
context_window = 16000
"""
    )
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(config))
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "foldchat.db"))
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    return tmp_path
