"""What adding one message to the transcript costs as a session grows: CPU per message, headless.

Run: .venv/bin/python bench/transcript_bench.py [--counts 20,100,300] [--adds 40]

For each count, a 160x48 headless app (Textual's test driver) holds Foldchat's transcript with that many
messages appended one by one, as a session does; then `--adds` more are appended, each followed by a
50 ms pause for its layout pass and frame, and the UI thread's CPU time per added message is printed.
Beside it, the same for a bare Textual column of `Static`s (no pruning: what Textual costs by itself).
Every layout pass walks every mounted widget, so a transcript that only ever mounts gets dearer each turn.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from foldchat.tui.widgets.message import MessageData
from foldchat.tui.widgets.transcript import Transcript
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

PAUSE = 0.05


class Host(App[None]):
    def __init__(self, ours: bool) -> None:
        super().__init__()
        self.ours = ours

    def compose(self) -> ComposeResult:
        yield Transcript() if self.ours else VerticalScroll()


async def add(column: Widget, n: int) -> None:
    text = f"Message number {n}, a short line of text."
    if isinstance(column, Transcript):
        await column.append(MessageData(n, "user" if n % 2 == 0 else "assistant", text, status="complete"))
    else:
        await column.mount(Static(text))
        column.scroll_end(animate=False)


async def cpu_per_message(ours: bool, before: int, adds: int) -> float:
    app = Host(ours)
    async with app.run_test(size=(160, 48)) as pilot:
        column = app.query_one(Transcript if ours else VerticalScroll)
        if isinstance(column, Transcript):
            await column.show([], pinned=set(), folded_upto=0)  # as the app opens a conversation
        for n in range(before):
            await add(column, n)
        await pilot.pause(0.2)
        start = time.thread_time()
        for n in range(adds):
            await add(column, before + n)
            await pilot.pause(PAUSE)
        return (time.thread_time() - start) / adds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="20,100,300", help="messages already appended, comma-separated")
    parser.add_argument("--adds", type=int, default=40, help="messages appended and measured")
    args = parser.parse_args()
    print(f"{'messages before':>16} {'Foldchat ms':>12} {'bare Textual ms':>16}")
    for count in (int(c) for c in args.counts.split(",")):
        ours = asyncio.run(cpu_per_message(True, count, args.adds))
        bare = asyncio.run(cpu_per_message(False, count, args.adds))
        print(f"{count:>16} {1000 * ours:>12.1f} {1000 * bare:>16.1f}")


if __name__ == "__main__":
    main()
