"""Typing after a big paste: how long each keystroke keeps the UI busy, and what the token cache keeps.

Run: .venv/bin/python bench/keystroke_bench.py [--kb 200] [--keys 50]

The real app under Textual's Pilot (headless), a loopback OpenAI-format server as the model. A
`--kb` KB paste goes into the composer, then `--keys` single keys are pressed; each key is timed from
`pilot.press` until the UI is idle again (`pilot.pause()`), which is what the user feels as lag.
It also prints how long the gauge took to show the final count, and how many entries (and how
many characters of text) the model's per-message token cache holds afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("FAKE_KEY", "sk-bench")

LINE = "2026-03-02 02:14:07 ERROR db-7 timeout after 30s (pool=billing, query=SELECT * FROM invoices)\n"


async def measure(kb: int, keys: int) -> dict[str, float]:
    from foldchat.tui.app import AppOptions, make_app
    from foldchat.tui.widgets.composer import Composer
    from foldchat.tui.widgets.gauge import ContextGauge

    from servers.fake_openai import FakeOpenAI
    from tui.conftest import settings_for

    server = FakeOpenAI().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            options = AppOptions(settings=settings_for(server, 128_000), database=Path(tmp) / "bench.db")
            app = make_app(options)
            async with app.run_test(size=(160, 48)) as pilot:
                screen = app.get_screen("chat")
                while not screen.model_ready:
                    await pilot.pause(0.05)
                composer = screen.query_one(Composer)
                composer.focus()
                composer.insert(LINE * (kb * 1024 // len(LINE)))
                await pilot.pause()
                times = []
                for _ in range(keys):
                    start = time.perf_counter()
                    await pilot.press("x")
                    await pilot.pause()
                    times.append(time.perf_counter() - start)
                start = time.perf_counter()
                final = await asyncio.to_thread(screen.backend.typed_tokens, composer.text)
                while screen.query_one(ContextGauge).state.typing != final:
                    await pilot.pause(0.01)
                settled = time.perf_counter() - start
                cache = getattr(screen.backend.counter(), "_cache", {})
                cached_chars = sum(len(m.text) for m in cache)
    finally:
        server.stop()
    return {
        "median_ms": 1000 * statistics.median(times),
        "max_ms": 1000 * max(times),
        "gauge_settled_ms": 1000 * settled,
        "cache_entries": len(cache),
        "cache_mb": cached_chars / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=200)
    parser.add_argument("--keys", type=int, default=50)
    args = parser.parse_args()
    result = asyncio.run(measure(args.kb, args.keys))
    print(f"paste {args.kb} KB, then {args.keys} keys (press → UI idle):")
    print(f"  per key: median {result['median_ms']:.1f} ms, max {result['max_ms']:.1f} ms")
    print(f"  gauge shows the final count {result['gauge_settled_ms']:.0f} ms after the last key's UI work")
    print(f"  token cache: {result['cache_entries']:.0f} entries, {result['cache_mb']:.1f} MB of message text")


if __name__ == "__main__":
    main()
