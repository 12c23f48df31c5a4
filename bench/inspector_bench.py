"""How long the fold inspector takes to open on a long everyday chat, headless.

Run: .venv/bin/python bench/inspector_bench.py [--chat friends] [--window 8192] [--runs 5]

The chat (bench/chats/) is folded once with the rules summarizer at the window, as the app folds it; then a
160x48 headless app (Textual's test driver) pushes the inspector on that fold `--runs` times and the time
until the app is idle again (the inspector's widgets mounted and laid out) is printed: min / median / max.
While it mounts the app answers no key, so this is how long /folds looks frozen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import parse_messages
from foldchat.engine.snapshot import LIST_SECTIONS, render
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for
from foldchat.tui.screens.fold_inspector import FoldInspector, FoldView
from textual.app import App

CHATS = Path(__file__).parent / "chats"


def folded_view(chat: str, window: int) -> FoldView:
    messages = parse_messages(json.loads((CHATS / f"{chat}.json").read_text())["messages"])
    request = FoldRequest(counter_for("gpt-4o"), window, RulesSummarizer(), reserved_output=1024, force=True)
    result = fold_context(messages, request)
    snapshot = result.snapshot
    assert snapshot is not None, "the chat did not fold"
    sections = [("overall_goal", [snapshot.overall_goal])] + [(n, list(getattr(snapshot, n))) for n in LIST_SECTIONS]
    covered = [f"{n} · {m.role}: {m.text[:80]}" for n, m in enumerate(messages, start=1)][
        : result.report.folded_messages
    ]
    return FoldView(
        fold_id=1, sections=sections, snapshot_text=render(snapshot), edited=False, covers=(1, len(covered)),
        covered_count=len(covered), tokens_before=result.report.tokens_before,
        tokens_after=result.report.tokens_after, summarizer="rules", trigger="manual", chain=["#1"], covered=covered,
    )  # fmt: skip


async def open_times(view: FoldView, runs: int) -> list[float]:
    times = []
    app = App[None]()
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(runs):
            started = time.perf_counter()
            await app.push_screen(FoldInspector(view))
            await pilot.pause()
            times.append(time.perf_counter() - started)
            app.pop_screen()
            await pilot.pause()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chat", default="friends")
    parser.add_argument("--window", type=int, default=8192)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    view = folded_view(args.chat, args.window)
    items = sum(len(items) for _, items in view.sections) + len(view.covered)
    times = asyncio.run(open_times(view, args.runs))
    print(
        f"{args.chat} at {args.window}: {items} lines; inspector open in "
        f"{min(times):.2f} / {statistics.median(times):.2f} / {max(times):.2f} s (min / median / max)"
    )


if __name__ == "__main__":
    main()
