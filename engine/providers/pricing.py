"""What a request cost, from the provider's own usage, priced with litellm's model map.

Providers discount what they read from their prompt cache (OpenAI, DeepSeek and Gemini cache a repeated
prefix by themselves and report `cached_tokens`; Anthropic caches what a request marks, reads at a tenth
of the input price and writes at 1.25x). Pricing `prompt_tokens x input price` charged cached reads in
full and missed cache writes, so litellm prices the usage it parsed (`cost_per_token` with the usage
object: cached reads, cache writes and reasoning at the model's own rates). A model litellm has no price
for (a self-hosted one, an alias with its own prices) is priced from the target's per-token prices,
every prompt token at the input price: nothing there says what a cache read costs.
"""

from __future__ import annotations

from typing import Any

from .events import UsageReport
from .target import ModelTarget


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def cache_counts(reported: Any) -> tuple[int, int]:
    """(tokens read from the cache, tokens written to it) in a litellm `Usage`, whichever provider."""
    details = getattr(reported, "prompt_tokens_details", None)
    read = _count(getattr(details, "cached_tokens", None)) or _count(getattr(reported, "cache_read_input_tokens", None))
    written = _count(getattr(reported, "cache_creation_input_tokens", None)) or _count(
        getattr(details, "cache_creation_tokens", None)
    )
    return read, written


def reasoning_count(reported: Any) -> int:
    details = getattr(reported, "completion_tokens_details", None)
    return _count(getattr(details, "reasoning_tokens", None))


def priced(reported: Any, target: ModelTarget) -> UsageReport:
    """The usage litellm parsed from a response (`Usage`), with its cost and its cost without the cache."""
    prompt, completion = _count(reported.prompt_tokens), _count(reported.completion_tokens)
    read, written = cache_counts(reported)
    reasoning = reasoning_count(reported)
    if target.backend.on_this_machine:
        return UsageReport(prompt, completion, 0.0, read, written, reasoning, 0.0)
    mapped = _litellm_cost(target, reported, prompt, completion)
    if mapped is None:  # no price in litellm's map: the target's own prices, no cache discount known
        cost = target.cost(prompt, completion)
        return UsageReport(prompt, completion, cost, read, written, reasoning, cost)
    cost, uncached = mapped
    return UsageReport(prompt, completion, cost, read, written, reasoning, uncached)


def _litellm_cost(target: ModelTarget, reported: Any, prompt: int, completion: int) -> tuple[float, float] | None:
    from ..lazy import load_litellm

    litellm = load_litellm()
    try:
        cost = sum(litellm.cost_per_token(model=target.litellm_model, usage_object=reported))
        uncached = sum(litellm.cost_per_token(model=target.litellm_model, prompt_tokens=prompt,
                                              completion_tokens=completion))  # fmt: skip
    except Exception:  # not in the map (ModelNotMappedError and kin): priced from the target instead
        return None
    return float(cost), float(uncached)
