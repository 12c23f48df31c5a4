"""Cost from the provider's own usage, at litellm's prices: cached reads at the cache price, cache writes
above the input price, and the cost without the cache beside it (what caching saved)."""

from __future__ import annotations

import pytest
from foldchat.engine.lazy import load_litellm
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.pricing import priced
from foldchat.engine.providers.target import ModelTarget


def usage(**fields):
    from litellm.types.utils import Usage

    load_litellm()
    return Usage(**fields)


def prices(model: str) -> dict:
    return load_litellm().model_cost[model]


def test_openai_cached_reads_are_priced_at_the_cache_price():
    from litellm.types.utils import PromptTokensDetailsWrapper

    target = ModelTarget("gpt", "gpt-4o", 128_000)
    report = priced(usage(prompt_tokens=10_000, completion_tokens=200, total_tokens=10_200,
                          prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=8_064)), target)  # fmt: skip
    p = prices("gpt-4o")
    expected = 1_936 * p["input_cost_per_token"] + 8_064 * p["cache_read_input_token_cost"] + 200 * p["output_cost_per_token"]
    assert report.cost == pytest.approx(expected, rel=1e-9) and report.cached_tokens == 8_064
    assert report.uncached_cost == pytest.approx(10_000 * p["input_cost_per_token"] + 200 * p["output_cost_per_token"])
    assert report.cost < report.uncached_cost  # it was charged in full before


def test_anthropic_cache_writes_cost_more_and_reads_less():
    target = ModelTarget("claude", "anthropic/claude-sonnet-4-5", 200_000)
    report = priced(usage(prompt_tokens=12_000, completion_tokens=100, total_tokens=12_100,
                          cache_read_input_tokens=9_000, cache_creation_input_tokens=2_000), target)  # fmt: skip
    p = prices("claude-sonnet-4-5")
    expected = (1_000 * p["input_cost_per_token"] + 9_000 * p["cache_read_input_token_cost"]
                + 2_000 * p["cache_creation_input_token_cost"] + 100 * p["output_cost_per_token"])  # fmt: skip
    assert report.cost == pytest.approx(expected, rel=1e-9)
    assert (report.cached_tokens, report.cache_write_tokens) == (9_000, 2_000)


def test_a_model_without_a_price_is_priced_from_the_target_and_the_local_model_is_free():
    custom = ModelTarget("mine", "openai/my-own-model", 8_000, input_cost_per_token=1e-6, output_cost_per_token=2e-6)
    report = priced(usage(prompt_tokens=1_000, completion_tokens=10, total_tokens=1_010), custom)
    assert report.cost == pytest.approx(1_000 * 1e-6 + 10 * 2e-6) and report.uncached_cost == report.cost
    local = ModelTarget("local", "openai/local", 8_000, backend=EMBEDDED)
    assert priced(usage(prompt_tokens=1_000, completion_tokens=10, total_tokens=1_010), local).cost == 0.0


def test_a_fold_says_what_it_saves_per_later_send_and_costs_once():
    from foldchat.engine.spend import fold_economics

    claude = ModelTarget("claude", "anthropic/claude-sonnet-4-5", 200_000)
    p = prices("claude-sonnet-4-5")
    said = fold_economics(40_000, 10_000, claude)
    per_send = 30_000 * p["cache_read_input_token_cost"]
    once = 10_000 * p["cache_creation_input_token_cost"] - 40_000 * p["cache_read_input_token_cost"]
    assert said == (f"saves ≈${per_send:.4f} per later send · costs ≈${once:.4f} once "
                    "(the prompt cache is written again)")  # fmt: skip
    assert fold_economics(40_000, 10_000, ModelTarget("local", "openai/local", 8_000, backend=EMBEDDED)) is None
    assert fold_economics(40_000, 10_000, ModelTarget("mine", "openai/unpriced-model", 8_000)) is None
