"""Shared test setup: offline litellm, the synthetic conversations from bench/, an isolated home, and
the one `fake` fixture: an OpenAI-format server on 127.0.0.1."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from servers.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent


def _scratch_home() -> Path:
    """A home of the test run's own: databases, caches, the local model's files, configs and the shells
    the tmux tests start (their history) land here, never in the user's real home."""
    home = Path(tempfile.mkdtemp(prefix="foldchat-tests-home-"))
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


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A loopback OpenAI-format server (tests/servers/fake_openai.py), stopped after the test."""
    from servers.fake_openai import FakeOpenAI  # importable once tests/ is on sys.path (above)

    server = FakeOpenAI().start()
    yield server
    server.stop()
