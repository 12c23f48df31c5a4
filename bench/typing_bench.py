"""A paste without bracketed paste: N characters arriving as N key events, as a terminal sends them.

Run: .venv/bin/python bench/typing_bench.py [--chars 2000 8000 40000] [--limit 300] [--newline-every 0]

The real app under Textual's Pilot (headless), a loopback OpenAI-format server as the model. Every
character is posted to the app as its own key event at once (a terminal's unbracketed paste does not
wait for the app between keys), and the time is taken until the composer holds all of them and the
UI is idle again. `--newline-every K` puts a Ctrl+J (a newline in the composer) after every K
characters; 0 (the default) types one long line. A size that takes longer than `--limit` seconds is
reported as not done, and the sizes after it are not tried.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("FAKE_KEY", "sk-bench")

PROSE = "The nightly billing export timed out again after thirty seconds, see the pool settings. "


def keys_for(chars: int, newline_every: int) -> tuple[list[tuple[str, str | None]], str]:
    """The key events (key, character) that type `chars` characters, and the text they leave."""
    from textual.keys import _character_to_key

    text = (PROSE * (chars // len(PROSE) + 1))[:chars]
    keys: list[tuple[str, str | None]] = []
    typed = []
    for index, character in enumerate(text, 1):
        key = character if character.isalnum() else _character_to_key(character)
        keys.append((key, character))
        typed.append(character)
        if newline_every and index % newline_every == 0:
            keys.append(("ctrl+j", None))
            typed.append("\n")
    return keys, "".join(typed)


def not_done(chars: int, limit: float) -> None:
    """Said, and the bench ends: the app still has the keys to handle and would take as long to close."""
    print(f"  {chars:>6,} characters: not done after {limit:.0f} s", flush=True)
    os._exit(0)


async def measure(chars: int, limit: float, newline_every: int) -> float:
    """Seconds from posting `chars` characters' keys to all of them in the composer (see `not_done`)."""
    from foldchat.tui.app import AppOptions, make_app
    from foldchat.tui.widgets.composer import Composer
    from textual import events

    from servers.fake_openai import FakeOpenAI
    from tui.conftest import settings_for

    keys, expected = keys_for(chars, newline_every)
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
                await pilot.pause()
                start = time.perf_counter()
                for key, character in keys:
                    event = events.Key(key, character)
                    event.set_sender(app)
                    app.post_message(event)
                while time.perf_counter() - start < limit:
                    await asyncio.sleep(0.05)
                    if len(composer.document.text) >= len(expected):
                        await pilot.pause()
                        if composer.text != expected:
                            raise AssertionError(f"{chars}: the composer holds other text than was typed")
                        return time.perf_counter() - start
                not_done(chars, limit)
                raise AssertionError("not reached")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, nargs="+", default=[2_000, 8_000, 40_000])
    parser.add_argument("--limit", type=float, default=300)
    parser.add_argument("--newline-every", type=int, default=0)
    args = parser.parse_args()
    lines = f", a newline every {args.newline_every}" if args.newline_every else ", one line"
    print(f"characters typed as key events, all at once{lines} (first key → all in the composer, UI idle):")
    for chars in args.chars:
        seconds = asyncio.run(measure(chars, args.limit, args.newline_every))
        print(f"  {chars:>6,} characters: {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
