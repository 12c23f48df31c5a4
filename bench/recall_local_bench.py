"""What recall at every send costs the first word on the embedded local model (2 cores).

Run: .venv/bin/python bench/recall_local_bench.py [--rounds 3]

A long everyday chat (bench/chats/trip.json) is stored, folded (rules summarizer) and opened on the local
model as the app opens it: the server starts and reads the folded context ahead (`Session.read_ahead`),
and after that each question about a folded detail is sent and answered; the next question is sent once
the model has read the context again. Every question is asked twice, with recall at send on and off, in
alternating order. Reported: the median seconds from the send to the first streamed word in each case,
the difference, and the recalled tokens (`[fold] local_recall_budget`, 2 % of the 8,192-token window).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = [
    "What was the booking code of our TAP flights?",
    "Which guesthouse did we book in Lisbon?",
    "What time does the fado start at Adega da Saudade?",
]


async def first_word(session) -> tuple[float, int]:
    from foldchat.engine import PassagesRecalled, TextDelta

    started = time.perf_counter()
    first, recalled = float("nan"), 0
    async for event in session.reply():
        if isinstance(event, PassagesRecalled):
            recalled = event.recalled.tokens
        if isinstance(event, TextDelta) and event.text.strip() and first != first:
            first = time.perf_counter() - started
    return first, recalled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    from foldchat.engine import OpenOptions, Session
    from foldchat.engine.messages import parse_messages

    home = Path(tempfile.mkdtemp(prefix="foldchat-recall-local-"))
    os.environ.update(FOLDCHAT_DATABASE=str(home / "db.sqlite"), FOLDCHAT_CONFIG=os.devnull,
                      FOLDCHAT_LOCAL__MAX_REPLY_TOKENS="16", FOLDCHAT_SUMMARIZER="rules")  # fmt: skip
    chat = json.loads((HERE / "chats" / "trip.json").read_text())["messages"]
    with Session.open(OpenOptions(new=True, model="local")) as session:
        session.connect()
        for message in parse_messages(chat[:80]):
            session.store.append(session.context.stored_id(), message)
        session.prepare_model()
        report = session.fold_now()
        print(f"folded: {report.tokens_before:,} -> {report.tokens_after:,} tokens" if report else "not folded")
        times: dict[bool, list[float]] = {True: [], False: []}
        tokens: list[int] = []
        for round_number in range(args.rounds):
            for n, question in enumerate(QUESTIONS):
                for on in (True, False) if (n + round_number) % 2 == 0 else (False, True):
                    session.recall_at_send(on)
                    session.read_ahead()
                    session.warmer.wait(300)  # the user typed long enough for the read-ahead to finish
                    session.add_user_message(question)
                    first, recalled = asyncio.run(first_word(session))
                    times[on].append(first)
                    if on:
                        tokens.append(recalled)
                    print(f"  recall {'on ' if on else 'off'}: first word {first:5.2f} s  ({recalled} recalled tokens)  "
                          f"{question}", flush=True)  # fmt: skip
        session.registry.local.stop()
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"first word, median: recall on {on:.2f} s, off {off:.2f} s: +{on - off:.2f} s "
          f"(recalled {statistics.median(tokens):.0f} tokens, median)")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
