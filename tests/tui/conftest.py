"""Pilot fixtures: the real app factory, a real SQLite file, a loopback OpenAI-format server."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator

import pytest
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.policy import FoldPolicy
from foldchat.tui.app import AppOptions, make_app

from servers.fake_openai import FakeOpenAI


def settings_for(fake: FakeOpenAI, window: int = 16000, request_timeout: float = 3) -> Settings:
    return Settings(
        default_model="fake",
        request_timeout=request_timeout,
        max_retries=1,
        models={
            "fake": ModelAlias(
                model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=window
            ),
            "fake-small": ModelAlias(
                model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=4000
            ),
        },
        fold=FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=64),
    )


@pytest.fixture
def app_factory(fake, tmp_path, monkeypatch) -> Callable[..., object]:
    monkeypatch.setenv("FAKE_KEY", "sk-test")

    # A test that holds the reply back passes a long request_timeout: under load the hold can outlast 3 s,
    # and the read timeout would end the stream as an error before the test looks.
    def factory(window: int = 16000, request_timeout: float = 3, **options):
        settings = settings_for(fake, window, request_timeout)
        return make_app(AppOptions(settings=settings, database=tmp_path / "tui.db", **options))

    return factory


@pytest.fixture(autouse=True)
def unfrozen_heap() -> Iterator[None]:
    """An app freezes its heap once its model is ready (tui/heap.py); the next test runs in this process."""
    yield
    gc.unfreeze()


async def wait_for(pilot, predicate, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await pilot.pause(0.05)
    raise AssertionError("timed out waiting for the UI")
