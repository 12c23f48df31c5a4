"""What a conversation cost, said the same way by every face: the total with what prompt caching saved,
and one line per reply from the usage its provider reported (docs/design.md §15)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # names in signatures only: `foldchat list` and `show` need no provider module to print a cost
    from .providers.events import UsageReport
    from .providers.target import ModelTarget
    from .store.usage_rows import UsageTotals


def money(amount: float) -> str:
    return f"${amount:.4f}"


def total_line(totals: UsageTotals) -> str:
    """'$0.0420 · 71% of input cached · caching saved $0.0610' (or just the cost when nothing was cached)."""
    line = money(totals.cost)
    if totals.summarizer_cost:
        line += f" (summarizer {money(totals.summarizer_cost)})"
    if totals.cached_tokens:
        line += f" · {totals.cached_share:.0%} of input cached · caching saved {money(totals.saved)}"
    return line


def reply_line(usage: UsageReport) -> str:
    """One reply's request: input (cached reads and cache writes among it), output (reasoning among it), cost."""
    inputs = [f"input {usage.prompt_tokens:,}"]
    if usage.cached_tokens:
        inputs.append(f"{usage.cached_tokens:,} cached")
    if usage.cache_write_tokens:
        inputs.append(f"{usage.cache_write_tokens:,} written to the cache")
    output = f"output {usage.completion_tokens:,}" + (
        f" ({usage.reasoning_tokens:,} reasoning)" if usage.reasoning_tokens else ""
    )
    cost = money(usage.cost)
    if usage.uncached_cost is not None and abs(usage.uncached_cost - usage.cost) >= 5e-7:
        cost += f" ({money(usage.uncached_cost)} without the cache)"
    return f"{', '.join(inputs)} · {output} · {cost}"


def token_prices(target: ModelTarget) -> tuple[float, float, float] | None:
    """(input, cache read, cache write) price per token from litellm's map; None when free or unknown.
    A provider with no cache price reads and writes at the input price."""
    if target.backend.on_this_machine:
        return None
    from .lazy import load_litellm

    model_map = load_litellm().model_cost
    info = model_map.get(target.litellm_model) or model_map.get(target.litellm_model.split("/", 1)[-1]) or {}
    base = float(info.get("input_cost_per_token") or target.input_cost_per_token or 0.0)
    if not base:
        return None
    read = float(info.get("cache_read_input_token_cost") or base)
    return base, read, float(info.get("cache_creation_input_token_cost") or base)


def fold_economics(tokens_before: int, tokens_after: int, target: ModelTarget) -> str | None:
    """What a fold does to what later sends cost: each reads a shorter prefix (at the cache-read price),
    and the first after it writes the new one (the cache held the old)."""
    prices = token_prices(target)
    if prices is None or tokens_after >= tokens_before:
        return None
    _, read, write = prices
    per_send = (tokens_before - tokens_after) * read
    once = max(0.0, tokens_after * write - tokens_before * read)
    return f"saves ≈{money(per_send)} per later send · costs ≈{money(once)} once (the prompt cache is written again)"
