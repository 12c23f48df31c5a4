"""`summarizer = "auto"` picks the provider's small model on hosted models, rules locally."""

from __future__ import annotations

import litellm
import pytest
from foldchat.engine.config import Settings
from foldchat.engine.fold.chain import choose_summarizer
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.summarizer_model import MIN_SUMMARIZER_WINDOW, small_model
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.summarizers.llm import WithFallback


def price(name: str) -> float:
    info = litellm.model_cost[name]
    return float(info["input_cost_per_token"]) + float(info["output_cost_per_token"])


@pytest.fixture
def keys(monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(key, "sk-test")
    for key in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"):
        monkeypatch.delenv(key, raising=False)


def summarizer_for(model: str, tmp_path, **settings: object):
    config = Settings(database=tmp_path / "f.db", **settings)  # type: ignore[arg-type]
    registry = ModelRegistry(config)
    return choose_summarizer(config, registry, registry.resolve(model))


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5"])
def test_auto_on_a_hosted_model_is_the_llm_summarizer_with_its_providers_cheaper_model(keys, tmp_path, model):
    summarizer = summarizer_for(model, tmp_path)
    assert isinstance(summarizer, WithFallback)  # falls back to rules when the model's answer is unusable
    chosen = summarizer.primary.target.litellm_model  # type: ignore[attr-defined]
    assert chosen == small_model(_target(model, tmp_path))
    info = litellm.model_cost[chosen]
    assert info["litellm_provider"] == litellm.model_cost[model]["litellm_provider"] and info["mode"] == "chat"
    assert price(chosen) < price(model) and info["max_input_tokens"] >= MIN_SUMMARIZER_WINDOW


def _target(model: str, tmp_path):
    return ModelRegistry(Settings(database=tmp_path / "f.db")).resolve(model)


def test_auto_uses_the_summarizer_model_config_names(keys, tmp_path):
    summarizer = summarizer_for("gpt-4o", tmp_path, summarizer_model="gpt-4o-mini")
    assert summarizer.name == "llm:gpt-4o-mini"


def test_auto_on_the_local_model_is_rules(tmp_path):
    assert isinstance(summarizer_for("local", tmp_path), RulesSummarizer)


def test_auto_on_a_self_hosted_endpoint_summarizes_with_that_endpoints_model(keys, tmp_path):
    models = {"mine": {"model": "openai/my-model", "api_base": "http://127.0.0.1:9/v1", "context_window": 32000}}
    summarizer = summarizer_for("mine", tmp_path, models=models)
    assert summarizer.name == "llm:mine"


def test_auto_without_the_providers_key_is_rules(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert isinstance(summarizer_for("gpt-4o", tmp_path), RulesSummarizer)
