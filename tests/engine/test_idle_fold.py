"""A fold while idle (issue: prompt caching through folds): past the provider's prompt-cache lifetime the
next send reads everything at full price anyway, so a fold that is near (past the reset ratio) is due then;
never for a model with no cache price, nor before the lifetime, nor with automatic folds off."""

from __future__ import annotations

from foldchat.engine import OpenOptions, Session
from foldchat.engine.autofold import CACHE_LIFETIME_SECONDS
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.messages import Message


def session_at(model: str, tmp_path, fill: float) -> Session:
    alias = ModelAlias(model=model, api_base="http://127.0.0.1:9", api_key_env="FAKE_KEY", context_window=100_000)
    settings = Settings(default_model="m", models={"m": alias}, summarizer="rules")
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / f"{model.replace('/', '_')}.db"))
    session.connect()
    reply = "We walk along the river and talk about food, music and the ferry times. " * 12
    while session.usage().used < fill * session.usage().window:
        session.store.append(session.context.stored_id(), Message.user("And then?"))
        session.store.append(session.context.stored_id(), Message.assistant(reply))
    return session


def test_a_fold_is_due_when_idle_past_the_cache_lifetime_and_past_the_reset_ratio(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    with session_at("anthropic/claude-sonnet-4-5", tmp_path, 0.72) as claude:
        usage = claude.usage()
        assert claude.settings.fold.reset_at(usage.window) <= usage.used < usage.trigger
        assert claude.auto.idle_fold_due(CACHE_LIFETIME_SECONDS + 1)
        assert not claude.auto.idle_fold_due(CACHE_LIFETIME_SECONDS - 60)  # the cache still holds the prefix
        claude.auto.set_mode("off")
        assert not claude.auto.idle_fold_due(CACHE_LIFETIME_SECONDS + 1)


def test_no_idle_fold_below_the_reset_ratio_or_without_a_cache_price(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    with session_at("anthropic/claude-sonnet-4-5", tmp_path, 0.3) as early:
        assert not early.auto.idle_fold_due(CACHE_LIFETIME_SECONDS + 1)
    with session_at("openai/unpriced-model", tmp_path, 0.72) as unpriced:
        assert not unpriced.auto.idle_fold_due(CACHE_LIFETIME_SECONDS + 1)
