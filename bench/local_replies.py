"""What the embedded local model answers to everyday prompts: SmolLM2-135M-Instruct against Gemma 3 270M.

Run: .venv/bin/python bench/local_replies.py [--models smollm2 gemma] [--runs 3]

Each model is started as Foldchat starts it (its own chat template, or the transcript prompt for the
base Gemma; the same sampling settings), each prompt is sent `--runs` times as a new conversation, and
per model the table says:
- `on topic`: replies that contain a word the question is about (the expected keyword);
- `loops`: replies in which one sentence (or a 6-word run) is said three times or more;
- `words`: median reply length; `s`: median seconds per reply.
Then one reply per prompt is printed, for the README's "what to expect".
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

PROMPTS: list[tuple[str, tuple[str, ...]]] = [
    ("What is the capital of France?", ("paris",)),
    ("Write a Python function reverse_string(s) that reverses a string.", ("def reverse_string", "[::-1]")),
    ("Give me three tips for a job interview.", ("interview", "prepare", "research")),
    ("What is a context window in a language model?", ("token", "context")),
    ("How long should I boil an egg for a soft yolk?", ("minute",)),
    ("I'm planning a weekend in Lisbon. What should I see?", ("lisbon", "belém", "alfama", "tram")),
    ("Explain what a for loop does, briefly.", ("loop", "repeat", "each", "iterat")),
    ("My cat won't eat her food. What could be wrong?", ("vet", "cat", "food")),
]


def loops(text: str) -> bool:
    sentences = [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) > 8]
    if sentences and max(sentences.count(s) for s in sentences) >= 3:
        return True
    words = text.lower().split()
    runs = [" ".join(words[i : i + 6]) for i in range(len(words) - 5)]
    return bool(runs) and max(runs.count(r) for r in set(runs)) >= 3


async def reply(registry, target, prompt: str) -> str:
    from foldchat.engine.messages import Message
    from foldchat.engine.providers.events import Finished
    from foldchat.engine.providers.stream import stream_reply

    text = ""
    async for event in stream_reply(target, [Message.user(prompt).to_dict()]):
        if isinstance(event, Finished):
            text = event.message.text
    return text


def measure(model: str, runs: int) -> tuple[dict[str, float], list[tuple[str, str]]]:
    from foldchat.engine.config import LocalModelSettings, Settings
    from foldchat.engine.providers.registry import ModelRegistry

    settings = Settings(local=LocalModelSettings(model=model))  # type: ignore[arg-type]
    registry = ModelRegistry(settings)
    registry.local.start()
    try:
        target = registry.resolve("local")
        samples: list[tuple[str, str, float]] = []
        for prompt, _ in PROMPTS:
            for _ in range(runs):
                started = time.perf_counter()
                text = asyncio.run(reply(registry, target, prompt))
                samples.append((prompt, text, time.perf_counter() - started))
    finally:
        registry.local.stop()
    keywords = dict(PROMPTS)
    on_topic = sum(any(k in text.lower() for k in keywords[p]) for p, text, _ in samples)
    looped = sum(loops(text) for _, text, _ in samples)
    figures = {
        "on topic": on_topic / len(samples),
        "loops": looped / len(samples),
        "words": statistics.median(len(text.split()) for _, text, _ in samples),
        "s": statistics.median(s for _, _, s in samples),
    }
    shown = [(p, next(t for q, t, _ in samples if q == p)) for p, _ in PROMPTS]
    return figures, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["smollm2", "gemma"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import os

    home = Path(tempfile.mkdtemp(prefix="foldchat-replies-"))
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")  # Gemma is assembled there, not in the user's cache
    results = {model: measure(model, args.runs) for model in args.models}
    print(f"{'model':<10} {'on topic':>9} {'loops':>6} {'words':>6} {'s':>6}   ({len(PROMPTS)} prompts x {args.runs})")
    for model, (figures, _) in results.items():
        print(
            f"{model:<10} {figures['on topic']:>9.2f} {figures['loops']:>6.2f} {figures['words']:>6.0f} {figures['s']:>6.2f}"
        )
    for model, (_, shown) in results.items():
        print(f"\n== {model}")
        for prompt, text in shown:
            print(f"> {prompt}\n{' '.join(text.split())[:300]}\n")


if __name__ == "__main__":
    main()
