"""The stable prefix is marked for Anthropic's prompt cache (issue: prompt caching through folds): the
system prompt, the snapshot's acknowledgement and the newest stable point before the prompt, never more
than Anthropic takes, nothing that varies between sends before a mark; and what is marked is the same,
byte for byte, from one send to the next until a fold. Sent through litellm to a loopback server that
validates like Anthropic."""

from __future__ import annotations

import asyncio
import json

import pytest
from foldchat.engine import OpenOptions, Session
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.messages import Message
from foldchat.engine.policy import FoldPolicy

from servers.fake_anthropic import FakeAnthropic


@pytest.fixture
def anthropic():
    server = FakeAnthropic().start()
    yield server
    server.stop()


def open_claude(anthropic, tmp_path, monkeypatch) -> Session:
    monkeypatch.setenv("FAKE_KEY", "sk-ant-test")
    alias = ModelAlias(model="anthropic/claude-sonnet-4-5", api_base=anthropic.base_url, api_key_env="FAKE_KEY",
                       context_window=200_000)  # fmt: skip
    settings = Settings(default_model="claude", models={"claude": alias}, summarizer="rules", request_timeout=20,
                        max_retries=0, fold=FoldPolicy(min_messages=2, cooldown_messages=0))  # fmt: skip
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "cache.db"))
    session.connect()
    return session


def turn(session: Session, text: str) -> None:
    async def run() -> None:
        async for _ in session.turn(text):
            pass

    asyncio.run(run())


def marks(body: dict) -> list[str]:
    """Where the request's `cache_control` marks are: 'system' or 'messages.N'."""
    found = [f"system.{i}" for i, b in enumerate(body.get("system") or []) if isinstance(b, dict) and "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and "cache_control" in b for b in content):
            found.append(f"messages.{i}")
    return found


def unmarked(value):
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "cache_control"}
    return [unmarked(v) for v in value] if isinstance(value, list) else value


def prefix(body: dict, through: int) -> str:
    """What Anthropic hashes for a prefix: tools, system and messages through `through`, marks aside."""
    return json.dumps(unmarked([body.get("tools"), body.get("system"), body["messages"][: through + 1]]), sort_keys=True)


def test_the_stable_prefix_is_marked_and_stays_the_same_until_a_fold(anthropic, tmp_path, monkeypatch):
    with open_claude(anthropic, tmp_path, monkeypatch) as session:
        session.replies.set_system_prompt("You are a careful travel assistant. " * 20)
        for n in range(12):
            session.store.append(session.context.stored_id(), Message.user(f"Day {n}: plan the morning in Porto."))
            session.store.append(session.context.stored_id(), Message.assistant(f"Day {n}: Ribeira walk, 9:00."))
        report = session.fold_now()
        assert report is not None and report.compressed
        turn(session, "What about lunch on day 3?")
        turn(session, "And dinner?")
        first, second = anthropic.requests[-2], anthropic.requests[-1]
        for body in (first, second):
            found = marks(body)
            assert found and found[0].startswith("system") and len(found) <= 4, found
            snapshot_at = next(i for i, m in enumerate(body["messages"]) if "state_snapshot" in json.dumps(m))
            assert f"messages.{snapshot_at + 1}" in found  # its acknowledgement
            last = max(int(m.split(".")[1]) for m in found if m.startswith("messages."))
            # right before the prompt, or before the recalled passages that go with it (they vary)
            between = body["messages"][last + 1 : -1]
            assert between == [] or "recalled_messages" in json.dumps(between[0]), between
        # the second send can read what the first wrote: all the first marked comes again, unchanged
        last_first = max(int(m.split(".")[1]) for m in marks(first) if m.startswith("messages."))
        assert prefix(first, last_first) == prefix(second, last_first)


def test_an_openai_request_carries_no_marks(tmp_path, monkeypatch, fake):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    alias = ModelAlias(model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=16_000)
    settings = Settings(default_model="gpt", models={"gpt": alias}, request_timeout=20, max_retries=0)
    with Session.open(OpenOptions(settings=settings, database=tmp_path / "o.db")) as session:
        session.connect()
        session.replies.set_system_prompt("Be brief.")
        turn(session, "hello")
        assert "cache_control" not in json.dumps(fake.requests[-1])
