"""Runtime fixtures: a fake OpenAI server on 127.0.0.1 and an isolated config + database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from servers.fake_openai import FakeOpenAI


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


def foldchat(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foldchat", *args], input=stdin, capture_output=True, text=True, timeout=timeout,
        env=os.environ.copy(),
    )  # fmt: skip
