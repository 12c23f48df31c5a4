"""The cost Foldchat stores and shows is the cost the provider's own usage implies at litellm's prices,
on every provider fake (issue: prompt caching through folds): OpenAI reports cached reads by itself;
Anthropic reads and writes what the request marks. Through litellm, against loopback servers that
speak each wire format and report usage as each API does."""

from __future__ import annotations

import asyncio

import pytest
from foldchat.engine import OpenOptions, Session
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.lazy import load_litellm
from foldchat.engine.messages import Message

from servers.fake_anthropic import FakeAnthropic

SYSTEM = "You are a careful travel assistant who keeps every booking code exact. " * 120  # past 1,024 tokens


def open_on(model: str, base_url: str, tmp_path, monkeypatch) -> Session:
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    alias = ModelAlias(model=model, api_base=base_url, api_key_env="FAKE_KEY", context_window=200_000)
    settings = Settings(default_model="m", models={"m": alias}, summarizer="rules", request_timeout=20, max_retries=0)
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "cost.db"))
    session.connect()
    session.replies.set_system_prompt(SYSTEM)
    return session


def chat(session: Session, turns: int) -> None:
    async def run() -> None:
        for n in range(turns):
            async for _ in session.turn(f"Day {n}: what do we do in the morning, and where do we eat?"):
                pass

    asyncio.run(run())


def implied(model: str, usage: dict) -> float:
    """What `usage` (as the provider sent it) costs at litellm's prices for `model`, computed here."""
    p = load_litellm().model_cost[model]
    if "input_tokens" in usage:  # Anthropic: input_tokens excludes what was read from or written to the cache
        read, written = usage.get("cache_read_input_tokens", 0), usage.get("cache_creation_input_tokens", 0)
        return (usage["input_tokens"] * p["input_cost_per_token"] + read * p["cache_read_input_token_cost"]
                + written * p["cache_creation_input_token_cost"] + usage["output_tokens"] * p["output_cost_per_token"])  # fmt: skip
    cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
    return ((usage["prompt_tokens"] - cached) * p["input_cost_per_token"] + cached * p["cache_read_input_token_cost"]
            + usage["completion_tokens"] * p["output_cost_per_token"])  # fmt: skip


def test_openai_cached_reads_are_priced_as_the_usage_says(fake, tmp_path, monkeypatch):
    fake.approximate_usage = True
    with open_on("openai/gpt-4o", fake.base_url, tmp_path, monkeypatch) as session:
        chat(session, 4)
        expected = sum(implied("gpt-4o", u) for u in fake.usages)
        spent = session.replies.usage_totals()
        assert spent.cost == pytest.approx(expected, rel=0.01)
        assert spent.cached_tokens > 0 and spent.cost < spent.uncached_cost  # reads were charged in full before


@pytest.fixture
def anthropic():
    server = FakeAnthropic().start()
    yield server
    server.stop()


def test_anthropic_marked_prefix_is_read_from_the_cache_and_priced_as_the_usage_says(anthropic, tmp_path, monkeypatch):
    with open_on("anthropic/claude-sonnet-4-5", anthropic.base_url, tmp_path, monkeypatch) as session:
        session.store.append(session.context.stored_id(), Message.user("We land in Porto on 2 May."))
        session.store.append(session.context.stored_id(), Message.assistant("Noted: Porto, 2 May."))
        chat(session, 4)
        expected = sum(implied("claude-sonnet-4-5", u) for u in anthropic.usages)
        spent = session.replies.usage_totals()
        assert spent.cost == pytest.approx(expected, rel=0.01)
        assert spent.cached_tokens > 0  # the marks made the later sends read the prefix the first wrote


def test_the_summarizers_calls_are_counted_whether_or_not_the_fold_is_kept(fake, tmp_path, monkeypatch):
    fake.approximate_usage = True
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    alias = ModelAlias(model="openai/gpt-4o", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=16_000)
    settings = Settings(default_model="m", models={"m": alias}, summarizer="llm", request_timeout=20, max_retries=0)
    with Session.open(OpenOptions(settings=settings, database=tmp_path / "fold.db")) as session:
        session.connect()
        for n in range(20):
            session.store.append(session.context.stored_id(), Message.user(f"Day {n}: what about the ferry to Gaia?"))
            session.store.append(session.context.stored_id(), Message.assistant("It leaves at 9:40 from Ribeira. " * 10))
        session.preview_fold(None)  # a preview that is never applied still paid for its calls
        calls = [u for body, u in zip(fake.requests, fake.usages, strict=True) if not body.get("stream")]
        assert calls, "the summarizer made no call"
        spent = session.replies.usage_totals()
        assert spent.summarizer_cost == pytest.approx(sum(implied("gpt-4o", u) for u in calls), rel=0.01)
        assert spent.cost == spent.summarizer_cost > 0  # no reply yet: the total is the summarizer's
