"""Provider switching and LLM folds: adaptation cost, LLM-summarizer latency, planted-fact retention.

Run: .venv/bin/python bench/provider_bench.py
- adapt(): cost per send on a 1,000-message history with tool calls (warm), and the whole
  `Context.adapted_context` (reads the transcript from SQLite, rebuilds, adapts);
- the LLM summarizer against the real local model on a ~30k-token history: chunks, model calls, seconds,
  whether its output validated or the rules fallback wrote the snapshot;
- planted user facts kept by the rules summarizer vs the LLM summarizer (before and after the
  safety net that restores user requests) on the same synthetic conversations.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from foldchat.engine import snapshot as snap
from foldchat.engine.config import Settings
from foldchat.engine.context import Context
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import parse_messages
from foldchat.engine.providers.adapt import TargetRules, adapt
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.store import Store
from foldchat.engine.summarizers import RulesSummarizer, SummaryRequest
from foldchat.engine.summarizers.llm import LLMSummarizer, WithFallback, parse_snapshot
from foldchat.engine.tokens import LiteLLMCounter

from synth import coding_conversation


def adaptation() -> None:
    raw, _ = coding_conversation(250_000, seed=3)
    messages = parse_messages(raw)[:1000]
    rules = TargetRules("anthropic")
    origins = ["openai"] * len(messages)
    adapt(messages, rules, origins)
    runs = []
    for _ in range(30):
        start = time.perf_counter()
        adapt(messages, rules, origins)
        runs.append(time.perf_counter() - start)
    print(f"adapt(): 1,000 messages → anthropic: median {statistics.median(runs) * 1000:.2f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "b.db")
        cid = store.create_conversation()
        for message in messages:
            store.append(cid, message, model="gpt-4o" if message.role == "assistant" else None)
        settings = Settings()
        registry = ModelRegistry(settings)
        session = Context(store, registry, settings, cid)
        target = registry.resolve("gpt-4o")
        session.adapted_context(target)
        runs = []
        for _ in range(10):
            start = time.perf_counter()
            session.adapted_context(target)
            runs.append(time.perf_counter() - start)
        print(f"Context.adapted_context (SQLite read + rebuild + adapt), 1,000 messages: "
              f"median {statistics.median(runs) * 1000:.1f} ms")  # fmt: skip


def retention(text: str, facts: list[str]) -> float:
    return sum(1 for f in facts if f in text) / len(facts) if facts else 1.0


def llm_folds() -> None:
    settings = Settings()
    registry = ModelRegistry(settings)
    target = registry.prepare(registry.resolve("local"))
    raw, _ = coding_conversation(30_000, seed=11)
    messages = parse_messages(raw)
    counter = LiteLLMCounter("gpt-4o")
    llm = LLMSummarizer(target, timeout=300)
    summarizer = WithFallback(llm)
    start = time.perf_counter()
    result = fold_context(messages, FoldRequest(counter=counter, window=32_000, summarizer=summarizer, force=True))
    elapsed = time.perf_counter() - start
    print(f"LLM fold with the local model, {result.report.tokens_before:,} tokens: {result.report.chunks} chunks, "
          f"{llm.calls} model calls, {elapsed:.1f} s, summarizer: {result.report.summarizer[:90]}")  # fmt: skip
    valid = attempts = 0
    raw_kept, net_kept, rules_kept = [], [], []
    for seed in (21, 22, 23):
        conv, planted = coding_conversation(3_000, seed=seed)
        head = [m for m in parse_messages(conv) if m.role != "system"][:-1]
        asked = [f for f in planted if any(f in m.text for m in head if m.role == "user")]
        request = SummaryRequest(head, output_budget=1200)
        rules_kept.append(retention(snap.render(RulesSummarizer().summarize(request)), asked))
        attempts += 1
        try:
            from foldchat.engine.summarizers.llm import SYSTEM, history_block

            reply = llm._complete(SYSTEM, history_block(head) + "\nReply with the JSON object now.", 1200)
            parsed = parse_snapshot(reply)
            valid += 1
            raw_kept.append(retention(snap.render(parsed), asked))
            net_kept.append(retention(snap.render(llm.summarize(request)), asked))
        except Exception:
            raw_kept.append(0.0)
            net_kept.append(retention(snap.render(summarizer.summarize(request)), asked))
    print(f"local-model snapshots that validated: {valid}/{attempts}")
    print(f"planted user facts kept: rules {100 * statistics.mean(rules_kept):.0f}% · "
          f"LLM raw {100 * statistics.mean(raw_kept):.0f}% · LLM after safety net/fallback "
          f"{100 * statistics.mean(net_kept):.0f}%")  # fmt: skip
    registry.close()


if __name__ == "__main__":
    adaptation()
    llm_folds()
