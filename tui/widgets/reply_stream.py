"""A reply as it streams: finished Markdown blocks, and the block still being written as plain text.

Writing every frame's text into the Markdown widget re-parses and re-renders its last block and lays
out the transcript again, frame after frame. Here text reaches the Markdown only once a
block is complete (a blank line outside a code fence, or a closing fence), so the Markdown renders
once per block; the unfinished block is shown as it arrives, literally, in a one-widget tail that asks
for a layout pass only when its height changes. `finish` writes the rest and removes the tail, so the
finished reply is the same Markdown a stored reply shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.content import Content
from textual.geometry import Size
from textual.visual import VisualType
from textual.widget import Widget

from .placed import PlacedWidget
from .reply_markdown import ReplyMarkdown

if TYPE_CHECKING:
    from textual.css.styles import RulesMap

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
BLOCKS_INTERVAL = 1.5
"""Seconds between two writes of finished blocks to the Markdown: each write lays out the screen
again, which costs more the more the transcript holds; blocks that finish in between wait in the tail."""


class BlockBoundaries:
    """Where the complete Markdown blocks of a growing text end.

    Only complete lines are read, each once: `settled(text)` is the offset just past the last blank
    line outside a code fence or the last closing fence (0 while there is none)."""

    def __init__(self) -> None:
        self._scanned = 0
        self._fence = ""
        self._settled = 0

    def settled(self, text: str) -> int:
        while (end := text.find("\n", self._scanned)) != -1:
            line = text[self._scanned : end]
            self._scanned = end + 1
            match = _FENCE.match(line)
            if not self._fence:
                if match:
                    self._fence = match.group(1)
                elif not line.strip():
                    self._settled = self._scanned
            elif match and match.group(1).startswith(self._fence) and not line.strip(" `~"):
                self._fence = ""
                self._settled = self._scanned
        return self._settled


class StreamTail(PlacedWidget):
    """The reply's unfinished block, as plain text (already made `visible` by the caller).

    Its height grows in steps of `STEP` lines, so most paints fit the room it already has and need no
    layout pass: laying out the screen again costs as much as the whole transcript holds.
    Its first room, there before the first word, is one line: a one-line reply (the local model's usual)
    needs no pass until it ends, and its Markdown then takes the same line, so the transcript's
    geometry does not change at the end either (a first room of `STEP` lines shrank to one there, which
    cost a second layout pass and a repaint of the whole scrolled transcript per turn). The room not
    yet written is blank for a moment; the tail is removed when the reply ends."""

    DEFAULT_CSS = "StreamTail { height: auto; }"
    STEP = 8

    def __init__(self) -> None:
        super().__init__()
        self._content = Content("")
        self._height = 1

    def show(self, text: str) -> bool:
        """Show `text`; True when its height changed, i.e. the transcript needed a layout pass."""
        self._content = Content(text)
        height = self._room(self.size.width)
        changed = height != self._height
        self._height = height
        self.refresh(layout=changed)
        return changed

    def _room(self, width: int) -> int:
        # RenderStyles is what Textual's own widgets pass where `get_height` declares its RulesMap
        lines = self._content.get_height(cast("RulesMap", self.styles), width) if width and self._content else 1
        return 1 if lines <= 1 else -(-lines // self.STEP) * self.STEP

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._room(width)

    def render(self) -> VisualType:
        return self._content


class ReplyStream:
    """Paints a streaming reply at most once per `interval`: Markdown per finished block, the tail between.

    `update(text)` only records the text (it runs per delta, so it must be cheap); a painter task shows
    the latest text, then waits `interval`, so a burst of deltas costs one paint and the last words
    before a pause are on screen within `interval`, whether or not another delta follows."""

    def __init__(self, tail: StreamTail, interval: float, on_paint: Callable[[str], None] | None = None) -> None:
        self._tail = tail
        self._interval = interval
        self._on_paint = on_paint
        self._blocks = BlockBoundaries()
        self._written = 0
        self._last_write = -BLOCKS_INTERVAL
        self._text = ""
        self._changed = asyncio.Event()
        self._painter: asyncio.Task[None] | None = None
        self._segments: list[ReplyMarkdown] = []
        self.markdown_writes = 0
        """Text handed to the Markdown widget, counted: about one per finished block (tests read it)."""
        self.paints = 0
        """Frames painted (each shows every delta that arrived since the one before)."""
        self.finished = False

    def update(self, text: str) -> None:
        """The reply received so far (the whole text, not a delta)."""
        self._text = text
        self._changed.set()
        if self._painter is None:
            self._painter = asyncio.create_task(self._paint())

    async def _paint(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            await self._show(self._text)
            if self._on_paint is not None:  # in the same frame as the text, not a frame of its own
                self._on_paint(self._text)
            await asyncio.sleep(self._interval)

    async def _show(self, text: str) -> None:
        self.paints += 1
        settled = self._blocks.settled(text)
        if settled > self._written and time.monotonic() - self._last_write >= BLOCKS_INTERVAL:
            self._last_write = time.monotonic()
            await self._write(text[self._written : settled])
        self._tail.show(text[self._written :])

    async def finish(self, text: str, replaced_by: Callable[[], object] | None = None) -> None:
        """The reply ended (or was stopped): the whole text becomes one Markdown, drawn as a stored reply
        is, and the segments and the tail go away, in one frame (no moment with the text twice or not at all).

        With `replaced_by`, the message view draws the text itself: that is called and every widget of
        the stream is removed, in the same frame; without it, the text goes into a Markdown child.
        Only the first call does anything (a tool round ends its stream before the reply's own end does)."""
        if self.finished:
            return
        self.finished = True
        if self._painter is not None:
            self._painter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._painter
            self._painter = None
        with self._tail.app.batch_update():
            parent = self._tail.parent
            if replaced_by is None and isinstance(parent, Widget):  # the view keeps a Markdown child (it has thinking)
                self._written = len(text)
                self.markdown_writes += 1
                await parent.mount(ReplyMarkdown(text), before=self._tail)
            if isinstance(parent, Widget):
                await parent.remove_children([*self._segments, self._tail])
            if replaced_by is not None:  # after the removal: a height measured while it ran is stale
                replaced_by()
            self._segments.clear()

    async def _write(self, fragment: str) -> None:
        """Finished blocks go into a segment of their own, above the tail, so what was drawn is never
        drawn again (a reply-long Markdown re-rendered once a second cost more the longer the reply
        grew)."""
        self._written += len(fragment)
        self.markdown_writes += 1
        segment = ReplyMarkdown(fragment, classes="-segment" if self._segments else None)
        self._segments.append(segment)
        parent = self._tail.parent
        if isinstance(parent, Widget):
            await parent.mount(segment, before=self._tail)
