"""First word after a resume or a fold on the local model, with and without reading the context ahead.

Run: .venv/bin/python bench/read_ahead_bench.py [--tokens 4000] [--typing 30] [--threads N]

A conversation of about `--tokens` tokens (an everyday chat from bench/chats) is stored and opened as
the app opens it: the local server starts, then the user types for `--typing` seconds and sends one
more message. Reported: seconds from the send to the first streamed word, when the session reads the
context ahead on open (`Session.read_ahead`, as it does now) and when it does not (as before), and how
long the read-ahead itself took. A fold changes the context the same way (`read_ahead` after it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def conversation(tokens: int) -> list[dict[str, str]]:
    messages = json.loads((HERE / "chats" / "trip.json").read_text())["messages"]
    chars = 0
    kept = []
    for message in messages:
        kept.append(message)
        chars += len(message["content"])
        if chars > tokens * 4 and message["role"] == "assistant":
            break
    return kept


async def first_word(session) -> tuple[float | None, str]:
    """Seconds to the reply's first word (None: no word came), and why the reply failed ("" when it did not)."""
    from foldchat.engine import Failed, TextDelta

    started = time.perf_counter()
    first: float | None = None
    failure = ""
    async for event in session.reply():  # read to the end: the reply is stored as the app stores it
        if isinstance(event, TextDelta) and event.text.strip() and first is None:
            first = time.perf_counter() - started
        elif isinstance(event, Failed):
            failure = event.error
    return first, failure


def said(first: float | None, failure: str) -> str:
    """A first word's time, or what came instead (a deadline passed under load, say)."""
    if first is not None:
        return f"{first:6.2f} s"
    return f"no word: {failure or 'the reply was empty'}"


def run(read_ahead: bool, messages: list[dict[str, str]], typing: float, threads: int | None) -> tuple[str, float]:
    from foldchat.engine import OpenOptions, Session
    from foldchat.engine.messages import parse_messages

    home = Path(tempfile.mkdtemp(prefix="foldchat-read-ahead-"))
    os.environ["FOLDCHAT_DATABASE"] = str(home / "db.sqlite")
    os.environ["FOLDCHAT_CONFIG"] = os.devnull
    if threads:
        os.environ["FOLDCHAT_LOCAL__THREADS"] = str(threads)
    with Session.open(OpenOptions(new=True, model="local")) as session:
        session.connect()
        for message in parse_messages(messages):
            session.store.append(session.context.stored_id(), message)
    with Session.open(OpenOptions(model="local")) as session:  # resumed: the latest conversation
        session.connect()
        session.prepare_model(read_ahead=read_ahead)  # as the app opens a conversation
        print(f"  context: {session.usage().tokens:,} tokens of the local model's vocabulary", flush=True)
        typed = time.perf_counter()
        session.warmer.wait(typing)
        warm = session.warmer.seconds or float("nan")
        time.sleep(max(0.0, typing - (time.perf_counter() - typed)))
        session.add_user_message("Thanks! And what time does the fado start?")
        first = said(*asyncio.run(first_word(session)))
        session.registry.local.stop()
    return first, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--typing", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    messages = conversation(args.tokens)
    before, _ = run(False, messages, args.typing, args.threads)
    after, warm = run(True, messages, args.typing, args.threads)
    print(f"context ~{args.tokens} tokens ({len(messages)} messages), user typing {args.typing:.0f} s")
    print(f"first word without read-ahead: {before}")
    took = f"{warm:.1f} s" if warm == warm else "longer than the typing"  # nan: not done when the user sent
    print(f"first word with read-ahead:    {after}   (the read-ahead took {took} while the user typed)")


if __name__ == "__main__":
    sys.exit(main())
