"""Trigger → folded context with a slow LLM summarizer, with and without a background pre-fold.

Run: .venv/bin/python bench/prefold_bench.py [--delay 5] [--runs 5] [--window 32000]

A loopback OpenAI-format server (tests/servers/fake_openai.py) answers every summarizer call after
`--delay` seconds, through litellm, as `summarizer = "llm"` would reach a hosted model. A conversation
(real SQLite file) grows by turns of about 300 tokens. "prepared": once usage passes the reset ratio,
`session.auto.prepare_fold` runs (as the TUI's worker does), then the conversation grows to the trigger.
"not prepared": the same growth, no preparation. Timed: from the check before the send at the trigger
(`auto.fold_if_needed`) until the folded context is built (`context.messages()`), what the reply waits for.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["PREFOLD_BENCH_KEY"] = "sk-bench"

from foldchat.engine import Message, OpenOptions, Session  # noqa: E402
from foldchat.engine.config import ModelAlias, Settings  # noqa: E402
from foldchat.engine.policy import FoldPolicy  # noqa: E402

from servers.fake_openai import FakeOpenAI  # noqa: E402

SNAPSHOT = {"overall_goal": "Plan the trip", "user_requests": ["Book the rooms"], "decisions": ["Casa Rio"]}


def open_session(fake: FakeOpenAI, db: Path, window: int) -> Session:
    alias = ModelAlias(
        model="openai/fake-model", api_base=fake.base_url, api_key_env="PREFOLD_BENCH_KEY", context_window=window
    )
    settings = Settings(
        default_model="fake", request_timeout=60, max_retries=0, summarizer="llm", models={"fake": alias},
        fold=FoldPolicy(min_messages=2, cooldown_messages=0),
    )  # fmt: skip
    session = Session.open(OpenOptions(settings=settings, database=db))
    session.connect()
    return session


def add_turn(session: Session, n: int, reply: bool = True) -> None:
    session.add_user_message(f"Day {n}: book room BK-{1000 + n} for Ana Ruiz. " + "We like quiet streets. " * 30)
    if reply:
        answer = f"Booked BK-{1000 + n} near the river; breakfast from 07:30. " + "Noted. " * 150
        session.store.append(session.conversation_id, Message.assistant(answer))


def one_run(fake: FakeOpenAI, window: int, prepare: bool) -> tuple[float, int, bool]:
    """Seconds from the trigger check to the folded context, summarizer calls it made, whether it folded."""
    with tempfile.TemporaryDirectory() as tmp, open_session(fake, Path(tmp) / "bench.db", window) as session:
        n = 0
        reset = session.settings.fold.reset_at(window)
        while session.usage().used < reset:
            add_turn(session, n)
            n += 1
        if prepare and not session.auto.prepare_fold():
            raise SystemExit(f"the pre-fold failed: {session.auto.prefold.failure}")
        while True:
            add_turn(session, n, reply=False)
            n += 1
            if session.usage().used >= session.usage().trigger:
                break
            session.store.append(session.conversation_id, Message.assistant("Noted. " * 150))
        calls = len(fake.requests)
        start = time.perf_counter()
        report = session.auto.fold_if_needed()
        session.context.messages()
        elapsed = time.perf_counter() - start
        return elapsed, len(fake.requests) - calls, bool(report and report.compressed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=5.0, help="seconds per summarizer call")
    parser.add_argument("--runs", type=int, default=5, help="runs with a prepared fold (one without)")
    parser.add_argument("--window", type=int, default=32_000)
    args = parser.parse_args()
    fake = FakeOpenAI().start()
    fake.reply = json.dumps(SNAPSHOT)
    fake.answer_delay = args.delay
    try:
        print(f"window {args.window:,} tokens · summarizer {args.delay:g} s per call (loopback, through litellm)")
        rows = [("not prepared", [one_run(fake, args.window, prepare=False)])]
        rows.append(("prepared", [one_run(fake, args.window, prepare=True) for _ in range(args.runs)]))
        print(f"{'':14} {'runs':>4} {'median ms':>10} {'max ms':>9} {'summarizer calls':>17} {'folded':>7}")
        for name, runs in rows:
            ms = [r[0] * 1000 for r in runs]
            calls = "/".join(str(r[1]) for r in runs)
            folded = all(r[2] for r in runs)
            print(f"{name:14} {len(runs):>4} {statistics.median(ms):>10.1f} {max(ms):>9.1f} {calls:>17} {folded!s:>7}")
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
