"""What a conversation cost, said the same way by every face: the total with what prompt caching saved,
and one line per reply from the usage its provider reported (docs/design.md §15)."""

from __future__ import annotations

from .providers.events import UsageReport
from .store.usage_rows import UsageTotals


def money(amount: float) -> str:
    return f"${amount:.4f}"


def total_line(totals: UsageTotals) -> str:
    """'$0.0420 · 71% of input cached · caching saved $0.0610' (or just the cost when nothing was cached)."""
    line = money(totals.cost)
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
