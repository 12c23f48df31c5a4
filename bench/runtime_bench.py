"""Runtime speed: the local model, `foldchat ask`'s overhead over a raw litellm call, SQLite writes.

Run: .venv/bin/python bench/runtime_bench.py [store]   (`store`: only the last figure, no model needed)
- local model: cold start (server process to first streamed token, GGUF already assembled), first
  token on a warm server, generation speed (tokens/s by the model's own tokenizer);
- overhead: the same streamed reply from a loopback OpenAI-format server, through `Replies.reply`
  (context build, fold check, incremental saves) vs a bare `litellm.acompletion` stream, in-process;
- SQLite: one `update_streaming` (the write made every 0.3 s while a reply streams) and one append;
- reading a conversation back (`Store.messages`) right after a write, as a turn does after each of its
  writes, at 100 and 1,000 messages, and again with nothing changed.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from foldchat.engine.config import LocalModelSettings, ModelAlias, Settings
from foldchat.engine.context import Context
from foldchat.engine.fold.chain import FoldChain
from foldchat.engine.lazy import load_litellm
from foldchat.engine.local.model import ensure_gguf
from foldchat.engine.messages import Message
from foldchat.engine.providers.events import TextDelta
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.providers.stream import stream_reply
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.replies import Replies
from foldchat.engine.store import Store

from servers.fake_openai import FakeOpenAI

QUESTIONS = ["What is the capital of Italy?", "Name three fruits.", "Why is the sky blue?", "Say hello."]


async def first_token_and_text(target: ModelTarget, question: str) -> tuple[float, float, str]:
    start = time.perf_counter()
    first = None
    text = []
    async for event in stream_reply(target, [{"role": "user", "content": question}], timeout=60):
        if isinstance(event, TextDelta):
            first = first or time.perf_counter() - start
            text.append(event.text)
    return first or float("nan"), time.perf_counter() - start, "".join(text)


def local_model() -> None:
    settings = LocalModelSettings()
    ensure_gguf(settings)
    registry = ModelRegistry(Settings(local=settings))
    start = time.perf_counter()
    target = registry.prepare(registry.resolve("local"))
    first, _, _ = asyncio.run(first_token_and_text(target, "Hello!"))
    cold = time.perf_counter() - start
    print(f"local model cold start to first token: {cold:.2f} s (server ready in {cold - first:.2f} s)")
    firsts, rates = [], []
    for question in QUESTIONS * 2:
        first, total, text = asyncio.run(first_token_and_text(target, question))
        firsts.append(first)
        tokens = registry.local.count_text(text)
        if total > first and tokens > 3:
            rates.append(tokens / (total - first))
    print(f"local model first token (warm): median {statistics.median(firsts) * 1000:.0f} ms")
    print(f"local model generation: median {statistics.median(rates):.0f} tokens/s over {len(rates)} replies")
    registry.close()


def overhead() -> None:
    fake = FakeOpenAI().start()
    litellm = load_litellm()
    settings = Settings(
        models={"fake": ModelAlias(model="openai/fake-model", api_base=fake.base_url, context_window=16000)}
    )
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "b.db")
    registry = ModelRegistry(settings)
    target = registry.resolve("fake")

    async def raw() -> None:
        response = await litellm.acompletion(
            model="openai/fake-model", api_base=fake.base_url, api_key="x", stream=True,
            messages=[{"role": "user", "content": "hi"}],
        )  # fmt: skip
        async for _ in response:
            pass

    async def through_session() -> None:
        context = Context(store, registry, settings, store.create_conversation())
        session = Replies(context)
        session.add_user_message("hi")
        FoldChain(context).fold(target)
        async for _ in session.reply(target):
            pass

    def timed(fn) -> float:  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        asyncio.run(fn())
        return time.perf_counter() - start

    timed(raw), timed(through_session)
    raws = [timed(raw) for _ in range(20)]
    sessions = [timed(through_session) for _ in range(20)]
    r, s = statistics.median(raws), statistics.median(sessions)
    print(f"reply via raw litellm: {r * 1000:.1f} ms; via Replies (store + fold check): {s * 1000:.1f} ms; "
          f"overhead {1000 * (s - r):.1f} ms")  # fmt: skip

    cid = store.create_conversation()
    row = store.append(cid, Message.assistant(""), status="streaming")
    text = "word " * 400
    updates = []
    for n in range(200):
        start = time.perf_counter()
        store.update_streaming(row, Message.assistant(text[: n * 10]))
        updates.append(time.perf_counter() - start)
    appends = []
    for n in range(200):
        start = time.perf_counter()
        store.append(cid, Message.user(f"message {n}"))
        appends.append(time.perf_counter() - start)
    print(f"SQLite update_streaming (one save of a streamed batch): median {statistics.median(updates) * 1e6:.0f} µs; "
          f"append: median {statistics.median(appends) * 1e6:.0f} µs")  # fmt: skip
    fake.stop()


def store_reads() -> None:
    for size in (100, 1000):
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "reads.db")
            cid = store.create_conversation()
            for n in range(size):
                message = Message.user(f"Question {n}: what is rain? " * 5) if n % 2 == 0 else None
                store.append(cid, message or Message.assistant(f"Answer {n}: **water** from `clouds`. " * 20))
            after_write, unchanged = [], []
            for _ in range(30):
                store.append(cid, Message.user("one more"))
                start = time.perf_counter()
                store.messages(cid)
                after_write.append(time.perf_counter() - start)
                start = time.perf_counter()
                store.messages(cid)
                unchanged.append(time.perf_counter() - start)
            store.close()
        print(f"Store.messages at {size:,} messages: after a write median {statistics.median(after_write) * 1000:.2f} ms;"
              f" unchanged {statistics.median(unchanged) * 1000:.3f} ms")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:] != ["store"]:
        local_model()
        overhead()
    store_reads()
