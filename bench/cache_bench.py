"""What a long conversation costs with prompt caching, priced at litellm's prices.

Run: .venv/bin/python bench/cache_bench.py [--turns 200] [--window 32000]

A scripted conversation of `--turns` turns (a system prompt, everyday questions of ~120 tokens) runs
through `Session.turn` and litellm against the loopback servers the tests use, which report usage as
each API does (tests/servers/): Anthropic (claude-sonnet-4-5) with the stable prefix marked and with the
marks taken out, and OpenAI (gpt-4o), which caches by itself. Folds happen as the policy says (the rules
summarizer, so the numbers do not depend on a summarizer's words). Reported per run: input cost, total
cost, the share of input tokens read from the cache, folds, and how far the cost Foldchat stored is from
the cost the provider's usage implies (goal: within 1 %). Goal for Anthropic: the input cost with marks
at most 35 % of the cost without them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(Path(__file__).parent)]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from foldchat.engine import (  # noqa: E402
    OpenOptions,
    Session,
    replies as replies_module,
)
from foldchat.engine.config import ModelAlias, Settings  # noqa: E402
from foldchat.engine.lazy import load_litellm  # noqa: E402

from servers.fake_anthropic import FakeAnthropic  # noqa: E402
from servers.fake_openai import FakeOpenAI  # noqa: E402

SYSTEM = "You are a careful travel assistant. Keep every booking code, date and price exact. " * 40
TOPICS = ["the museum hours", "a lunch place near the river", "the train to the coast", "a rainy-day plan",
          "the hotel's late check-out", "a bakery for breakfast", "the ferry times", "a viewpoint at sunset"]  # fmt: skip


def question(n: int) -> str:
    topic = TOPICS[n % len(TOPICS)]
    return (f"Day {n // 4 + 1}, question {n}: we are four adults on a budget of 90 EUR a day; tell me about "
            f"{topic}, what it costs, how long it takes, and what to book ahead (code TR-{1000 + n}). " * 2)  # fmt: skip


def implied(model: str, usage: dict) -> tuple[float, float]:
    """(input cost, total cost) of one reported usage at litellm's prices, computed here from the wire."""
    p = load_litellm().model_cost[model]
    if "input_tokens" in usage:
        read, written = usage.get("cache_read_input_tokens", 0), usage.get("cache_creation_input_tokens", 0)
        inputs = (usage["input_tokens"] * p["input_cost_per_token"] + read * p["cache_read_input_token_cost"]
                  + written * p["cache_creation_input_token_cost"])  # fmt: skip
        return inputs, inputs + usage["output_tokens"] * p["output_cost_per_token"]
    cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
    inputs = (usage["prompt_tokens"] - cached) * p["input_cost_per_token"] + cached * p["cache_read_input_token_cost"]
    return inputs, inputs + usage["completion_tokens"] * p["output_cost_per_token"]


def run(model: str, server: FakeAnthropic | FakeOpenAI, turns: int, window: int) -> dict[str, float]:
    os.environ["FAKE_KEY"] = "sk-bench"
    alias = ModelAlias(model=model, api_base=server.base_url, api_key_env="FAKE_KEY", context_window=window)
    settings = Settings(default_model="m", models={"m": alias}, summarizer="rules", request_timeout=30, max_retries=0)
    with tempfile.TemporaryDirectory() as scratch:
        session = Session.open(OpenOptions(settings=settings, database=Path(scratch) / "bench.db"))
        session.connect()
        session.replies.set_system_prompt(SYSTEM)

        async def chat() -> None:
            for n in range(turns):
                async for _ in session.turn(question(n)):
                    pass

        asyncio.run(chat())
        stored = session.replies.usage_totals()
        folds = len(session.chain.folds())
        session.close()
    priced = [implied(model.split("/", 1)[1], u) for u in server.usages]
    wire_total = sum(total for _, total in priced)
    prompt = sum(u.get("prompt_tokens", 0) or (u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0)
                 + u.get("cache_creation_input_tokens", 0)) for u in server.usages)  # fmt: skip
    return {"input": sum(i for i, _ in priced), "total": wire_total, "cached": stored.cached_tokens / max(1, prompt),
            "folds": folds, "off": abs(stored.cost - wire_total) / wire_total if wire_total else 0.0}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--window", type=int, default=32_000)
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for name, model, make, marks in (("anthropic, marked", "anthropic/claude-sonnet-4-5", FakeAnthropic, True),
                                     ("anthropic, no marks", "anthropic/claude-sonnet-4-5", FakeAnthropic, False),
                                     ("openai (automatic)", "openai/gpt-4o", FakeOpenAI, True)):  # fmt: skip
        server = make().start()
        if isinstance(server, FakeOpenAI):
            server.approximate_usage = True
        original = replies_module.needs_marks
        if not marks:
            replies_module.needs_marks = lambda _target: False
        try:
            results[name] = run(model, server, args.turns, args.window)
        finally:
            replies_module.needs_marks = original
            server.stop()
    print(f"{args.turns} turns, {args.window:,}-token window, litellm prices")
    print(f"{'run':<22}{'input $':>10}{'total $':>10}{'cached':>8}{'folds':>7}{'stored vs wire':>16}")
    for name, r in results.items():
        print(f"{name:<22}{r['input']:>10.4f}{r['total']:>10.4f}{r['cached']:>8.0%}{int(r['folds']):>7}{r['off']:>15.2%}")
    marked, unmarked = results["anthropic, marked"], results["anthropic, no marks"]
    print(f"anthropic input cost with marks: {marked['input'] / unmarked['input']:.0%} of without (goal <= 35%)")


if __name__ == "__main__":
    main()
