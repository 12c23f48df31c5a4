"""Fold speed on synthetic coding conversations from 100k to 1M tokens.

Run: .venv/bin/python bench/fold_bench.py [speed|artifacts|adversarial]   (or `make bench`; no argument: all)
- speed (this file):
Reports, per size: the cold fold (fresh token cache, rules summarizer, in-process after imports), the
warm re-count after appending one message (what the gauge pays per keystroke/message), and µs per 1k
tokens so linear growth is visible. Targets: cold <= 1.0 s at 1M tokens; warm <= 5 ms.
- artifacts (artifact_bench.py): how much of the artifact trail a fold keeps, per agent shape and
  window. Targets: edited/created paths 100 %, paths >= 90 %, distinct commands >= 80 %, within budget.
- adversarial (adversarial_bench.py): 1 MB hex/base64/punctuation pastes fold in under 1 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for

from synth import coding_conversation

MODEL = "gpt-4o"
SIZES = [100_000, 250_000, 500_000, 1_000_000]


def best_of(runs: int, fn) -> float:
    return min(timed(fn) for _ in range(runs))


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    counter_for(MODEL).count([Message.user("warm up the tokenizer")])
    print(f"{'tokens':>10} {'msgs':>6} {'cold fold s':>12} {'µs/1k tok':>10} {'after':>9} {'warm recount ms':>16}")
    for size in SIZES:
        raw, _ = coding_conversation(size)
        messages = parse_messages(raw)
        colds = []
        for _ in range(3):
            counter = counter_for(MODEL)  # a fresh cache: nothing counted yet
            request = FoldRequest(counter=counter, window=int(size * 1.1), summarizer=RulesSummarizer(), force=True)
            start = time.perf_counter()
            result = fold_context(messages, request)
            colds.append(time.perf_counter() - start)
        tokens = result.report.tokens_before
        cold = statistics.median(colds)
        appended = [*messages, Message.user("One more question about PAY-1234, please.")]
        counter.count(messages)  # the gauge's steady state: everything already counted once
        warms = [timed(lambda c=counter, a=appended, n=n: c.count([*a, Message.user(f"typed {n}")])) for n in range(20)]
        print(
            f"{tokens:>10,} {len(messages):>6} {cold:>12.3f} {cold / tokens * 1e9:>10.1f} "
            f"{result.report.tokens_after:>9,} {statistics.median(warms) * 1000:>16.2f}"
        )


def agent_and_chat_table() -> None:
    """A 1M-token agent trajectory (one request) folds in-process; post-fold usage on realistic cases."""
    from trajectories import agent_trajectory, everyday_chat, imported_compressed_history, readme_chat

    print(f"\n{'case':<34} {'tokens':>9} {'window':>8} {'fold s':>7} {'after/window':>13} {'facts kept':>11}")
    cases = [("agent trajectory 1M, 1 request", *agent_trajectory(1_000_000), 200_000)]
    for name, make in [("trip chat 60 turns", lambda: everyday_chat(60)), ("README paste chat", readme_chat),
                       ("imported gemini snapshot", imported_compressed_history),
                       ("agent trajectory 60k", lambda: agent_trajectory(60_000))]:  # fmt: skip
        raw, facts = make()
        cases.append((name, raw, facts, None))
    for name, raw, facts, window in cases:
        messages = parse_messages(raw)
        counter = counter_for(MODEL)
        tokens = counter.count(messages)
        window = window or int(tokens / 0.85)
        counter = counter_for(MODEL)  # cold: nothing counted yet
        request = FoldRequest(counter=counter, window=window, summarizer=RulesSummarizer(), reserved_output=1024)
        start = time.perf_counter()
        result = fold_context(messages, request)
        took = time.perf_counter() - start
        text = " ".join(m.text for m in result.messages)
        kept = sum(f in text for f in facts)
        used = (result.report.tokens_after + 1024) / window
        print(f"{name:<34} {tokens:>9,} {window:>8,} {took:>7.2f} {used:>12.0%} {kept:>5}/{len(facts)}")


if __name__ == "__main__":
    import adversarial_bench
    import artifact_bench

    parts = {"speed": main, "artifacts": artifact_bench.main, "adversarial": adversarial_bench.main,
             "realistic": agent_and_chat_table}  # fmt: skip
    for part in sys.argv[1:] or list(parts):
        print(f"\n## {part}")
        parts[part]()
