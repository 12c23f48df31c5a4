"""Client-side CPU of streaming one reply from the local server: the direct client vs litellm.

Run: .venv/bin/python bench/local_stream_bench.py [replies]   (default 8 per path)
Starts the real local server once, then streams the same prompts through `stream_reply` with the
target marked local (direct SSE client) and unmarked (litellm), alternating, and reports this
process's CPU seconds per reply and per streamed chunk (the server's CPU is not counted). The first
reply of each path is a warm-up and not counted (imports, clients).
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import sys
import time

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import SERVED_NAME, LocalModelServer
from foldchat.engine.providers.backend import EMBEDDED, PROVIDER
from foldchat.engine.providers.events import TextDelta
from foldchat.engine.providers.stream import stream_reply
from foldchat.engine.providers.target import ModelTarget

PROMPTS = ["Tell me about the sea.", "What is a good breakfast?", "Name a famous painter.", "What is rain?"]


async def one_reply(target: ModelTarget, prompt: str) -> tuple[float, int]:
    """CPU seconds of this process while the reply streams, and the number of text chunks."""
    chunks = 0
    start = time.process_time()
    async for event in stream_reply(target, [{"role": "user", "content": prompt}], timeout=120):
        chunks += isinstance(event, TextDelta)
    return time.process_time() - start, chunks


async def main() -> None:
    replies = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    server = LocalModelServer(LocalModelSettings())
    base = server.start()
    local = ModelTarget(
        name="local", litellm_model=f"openai/{SERVED_NAME}", window=8192, api_base=base, max_output_tokens=256,
        backend=EMBEDDED, temperature=0.7, extra_body={"repeat_penalty": 1.3}, api_key=server.api_key,
    )  # fmt: skip
    paths = {"direct": local, "litellm": dataclasses.replace(local, backend=PROVIDER)}
    results: dict[str, list[tuple[float, int]]] = {name: [] for name in paths}
    try:
        for target in paths.values():
            await one_reply(target, "Hello!")  # warm-up
        for n in range(replies):
            for name, target in paths.items():
                results[name].append(await one_reply(target, PROMPTS[n % len(PROMPTS)]))
    finally:
        server.stop()
    print(f"{'path':<8} {'CPU ms/reply (median)':>22} {'CPU ms/chunk':>13} {'chunks/reply':>13}")
    for name, rows in results.items():
        per_reply = statistics.median(cpu for cpu, _ in rows) * 1000
        chunks = sum(c for _, c in rows)
        per_chunk = sum(cpu for cpu, _ in rows) * 1000 / max(1, chunks)
        print(f"{name:<8} {per_reply:>22.1f} {per_chunk:>13.2f} {chunks / len(rows):>13.1f}")


if __name__ == "__main__":
    asyncio.run(main())
