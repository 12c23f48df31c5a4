"""The least a Textual chat does per turn, for comparison with Foldchat (bench/tui_bench.py --floor).

Run: .venv/bin/python bench/textual_floor.py DATABASE [TURN_SECONDS] [--lines]

A bare Textual app: a scrolling column of `Static`s and an `Input`. Enter mounts the prompt, then a reply
that "streams" a one-line answer as the local model does (13 words, 25 ms apart counted from the Enter,
repainted at most every 0.2 s like Foldchat's), and records the reply in DATABASE (SQLite) so the
benchmark sees it end.
With TURN_SECONDS the words are spread over that time instead: a share of a core depends on how long a
turn lasts, so the benchmark also runs this chat at the length of Foldchat's own turns.
With --lines the transcript is Textual's `Log` instead: one widget drawn through the line API, no widget
mounted per message; the prompt and the reply are lines written to it, the reply's words appended to its
line as they come. It answers whether a transcript without a widget per message would cost less a turn.
No engine, no storage of the conversation, no Markdown, no gauge: what is left is Textual's own cost of
laying out and painting a turn. First paint shows "Enter send", as Foldchat's composer does.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Log, Static

WORDS = ["The", "sea", "covers", "most", "of", "the", "Earth", "and", "shapes", "its", "weather", "every", "day."]


class FloorChat(App[None]):
    CSS = "Static { margin: 0 0 1 0; }"

    def __init__(self, database: str, turn: float = 0.025 * len(WORDS)) -> None:
        super().__init__()
        self.pace = turn / len(WORDS)
        self.database = sqlite3.connect(database, isolation_level=None)
        self.database.execute("CREATE TABLE IF NOT EXISTS messages (role TEXT, status TEXT)")

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="transcript")
        yield Input(placeholder="Message · Enter send")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        sent = asyncio.get_running_loop().time()
        event.input.clear()
        transcript = self.query_one("#transcript")
        await transcript.mount(Static(event.value, markup=False))
        reply = Static("", markup=False)
        await transcript.mount(reply)
        transcript.scroll_end(animate=False)
        self.run_worker(self.stream(reply, transcript, sent))

    async def words(self, sent: float) -> AsyncIterator[tuple[str, bool]]:
        """The reply so far after each word, and whether to paint it (at most every 0.2 s, and at its end);
        the words arrive `pace` apart counted from the Enter, so a turn lasts as long as asked."""
        text, painted = "", 0.0
        loop = asyncio.get_running_loop()
        for number, word in enumerate(WORDS, start=1):
            await asyncio.sleep(max(0.0, sent + number * self.pace - loop.time()))
            text += word + " "
            paint = loop.time() - painted >= 0.2 or number == len(WORDS)
            if paint:
                painted = loop.time()
            yield text, paint

    async def stream(self, reply: Static, transcript: VerticalScroll, sent: float) -> None:
        async for text, paint in self.words(sent):
            if paint:
                reply.update(text)
        transcript.scroll_end(animate=False)
        self.reply_stored()

    def reply_stored(self) -> None:
        self.database.execute("INSERT INTO messages VALUES ('assistant', 'complete')")


class LineFloorChat(FloorChat):
    """The same chat with its transcript drawn through the line API: one `Log`, lines written to it."""

    def compose(self) -> ComposeResult:
        yield Log(id="transcript")
        yield Input(placeholder="Message · Enter send")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        sent = asyncio.get_running_loop().time()
        event.input.clear()
        log = self.query_one(Log)
        log.write(f"{event.value}\n\n")
        self.run_worker(self.stream_lines(log, sent))

    async def stream_lines(self, log: Log, sent: float) -> None:
        shown = ""
        async for text, paint in self.words(sent):
            if paint:
                log.write(text[len(shown) :])  # appended to the reply's line
                shown = text
        log.write("\n\n")
        self.reply_stored()


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--lines"]
    chat = LineFloorChat if "--lines" in sys.argv else FloorChat
    chat(arguments[0], *map(float, arguments[1:2])).run()
