"""Recall's cost: what offering the tool adds to each request, and one recall round trip.

Run: .venv/bin/python bench/recall_bench.py
A folded agent conversation of about 200k and 1M tokens in a real SQLite file (rules summarizer,
gpt-4o's tokenizer); for each, the median of several runs of:
- `offered_tools`: the check made before every request once something is folded (rebuilds the context
  to know what is recallable);
- `recall(query)`: one answer by text, the slowest kind (scans every folded original);
- a plain reply, and a reply with one recall round, through litellm against the loopback OpenAI server
  (the model calls `recall`, the result is stored, the second request answered; `Session.reply`).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import timing

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from foldchat.engine import OpenOptions, Session
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy

from servers.fake_openai import FakeOpenAI
from trajectories import agent_trajectory

RUNS = 5


def median_ms(action, runs: int = RUNS) -> float:
    return timing.median_ms(action, runs)


async def one_round(session: Session) -> None:
    session.add_user_message("What did the first test run say?")
    async for _ in session.reply():
        pass


def measure(tokens: int, fake: FakeOpenAI, directory: Path) -> None:
    import os

    os.environ["FAKE_KEY"] = "sk-bench"
    alias = ModelAlias(model="openai/gpt-4o", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=128_000)
    settings = Settings(
        default_model="gpt", summarizer="rules", request_timeout=30, max_retries=0, models={"gpt": alias},
        fold=FoldPolicy(min_messages=2, cooldown_messages=0),
    )  # fmt: skip
    raw, _ = agent_trajectory(tokens)
    with Session.open(OpenOptions(settings=settings, database=directory / f"recall-{tokens}.db")) as session:
        session.connect()
        conversation = session.context.stored_id()
        for message in parse_messages(raw):
            session.store.append(conversation, message)
        assert session.fold_now().compressed  # type: ignore[union-attr]
        originals = session.replies.recallable(session.target)
        offered = median_ms(lambda: session.replies.offered_tools(session.target))
        answer = median_ms(lambda: session.recall(query="FAILED"))
        fake.script = ["ok"]
        plain = median_ms(lambda: asyncio.run(one_round(session)), runs=3)
        fake.script, fake.tool_calls = ["tool", "ok"], [("recall", json.dumps({"query": "FAILED"}))]
        round_trip = median_ms(lambda: asyncio.run(one_round(session)), runs=1)
        print(
            f"{len(raw):>6} messages (~{tokens:,} tokens), {len(originals)} recallable: "
            f"offered_tools {offered:.0f} ms, recall(query) {answer:.0f} ms; a reply {plain:.0f} ms, "
            f"a reply with one recall round {round_trip:.0f} ms"
        )


def main() -> None:
    fake = FakeOpenAI().start()
    try:
        with tempfile.TemporaryDirectory() as directory:
            for tokens in (200_000, 1_000_000):
                measure(tokens, fake, Path(directory))
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
