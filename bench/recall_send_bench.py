"""What recall at every send costs a send: the time to build a request with and without it, on a long
conversation in a real SQLite file, folded.

Run: .venv/bin/python bench/recall_send_bench.py [--messages 10000] [--sends 20]

A conversation of `--messages` messages (everyday turns, a fact in every tenth reply) is stored and folded
with the rules summarizer (gpt-4o's tokenizer, a 128k window); then each send stores a question about a
folded fact and builds its request as `Replies.reply` does (`Replies._request`, the work done off the event
loop before anything is sent), once with automatic recall and once without. Reported: the median and max
added milliseconds per send, the first send (which builds the conversation's index) apart, and how many
sends brought the fact's words back. Garbage collection is kept out of the timed pair (a full collection
with 10,000 messages in memory takes ~200 ms and would land in either measurement).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from foldchat.engine import OpenOptions, Session
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.messages import Message
from foldchat.engine.policy import FoldPolicy


def conversation(messages: int) -> list[Message]:
    out: list[Message] = []
    for n in range(messages // 2):
        out.append(Message.user(f"Turn {n}: what about the plan for week {n % 52}, and the parcel from Harbour Lane?"))
        fact = f" The locker code for parcel P-{n:05d} is {1000 + n * 7 % 9000}." if n % 10 == 0 else ""
        out.append(Message.assistant(f"For week {n % 52} the plan holds: groceries on Tuesday, gym at 7.{fact}"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--sends", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="recall-bench-"))
    os.environ["BENCH_KEY"] = "sk-bench"
    alias = ModelAlias(model="openai/gpt-4o", api_base="http://127.0.0.1:9", api_key_env="BENCH_KEY",
                       context_window=128_000)  # fmt: skip
    settings = Settings(default_model="bench", summarizer="rules", models={"bench": alias},
                        fold=FoldPolicy(min_messages=2, cooldown_messages=0))  # fmt: skip
    with Session.open(OpenOptions(settings=settings, database=folder / "bench.db")) as session:
        target = session.connect()
        conversation_id = session.context.stored_id()
        for message in conversation(args.messages):
            session.store.append(conversation_id, message)
        started = time.perf_counter()
        report = session.fold_now()
        print(f"{args.messages:,} messages stored and folded in {time.perf_counter() - started:.1f} s "
              f"({report.tokens_before:,} -> {report.tokens_after:,} tokens)" if report else "not folded")  # fmt: skip
        replies = session.replies
        added: list[float] = []
        found = 0
        for send in range(args.sends + 1):
            n = (send * 37) % (args.messages // 20) * 10  # a reply with a fact, folded
            session.add_user_message(f"what was the locker code for parcel P-{n:05d}?")
            gc.collect()  # a full collection (~200 ms with 10,000 messages held) would land in one of the two
            gc.disable()
            started = time.perf_counter()
            plain = replies._request(target, [], False, [], find_recall=False)
            without = time.perf_counter() - started
            started = time.perf_counter()
            request = replies._request(target, [], False, [], find_recall=True)
            with_recall = time.perf_counter() - started
            gc.enable()
            session.store.append(conversation_id, Message.assistant("noted"))
            found += request.recalled is not None and f"P-{n:05d}" in "".join(p.text for p in request.recalled.passages)
            if send == 0:
                print(f"first send (builds the index): +{(with_recall - without) * 1000:.0f} ms "
                      f"(request without recall {without * 1000:.0f} ms)")  # fmt: skip
                continue
            added.append((with_recall - without) * 1000)
            assert plain.tokens <= request.tokens
        print(f"added per send: median {statistics.median(added):.1f} ms, max {max(added):.1f} ms "
              f"over {len(added)} sends; the fact came back in {found}/{args.sends + 1}")  # fmt: skip


if __name__ == "__main__":
    main()
