"""A reply as the transcript shows it: the events of a turn's reply painted into its view.

Deltas are batched into at most 1/UI_INTERVAL paints a second: finished Markdown blocks render once each,
the block being written shows as plain text, and the reply is recounted for the gauge twice a second. The
transcript follows the reply by itself while the user is at its end (it is anchored:
widgets/transcript.py), and stays where the user scrolled to otherwise. Until the first event arrives the
header says how long the model has been waited for. What the rest of the screen shows of a reply (the
status line, the gauge's count) is posted up as messages: `StatusSaid`, `ReplyCounted` (counted in a thread
worker: for the local model a count is a round trip to its server, which the UI thread never waits for).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, assert_never

from foldchat.engine import (
    STOPPED,
    Failed,
    Finished,
    ModelTarget,
    Notice,
    PassagesRecalled,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCallDelta,
    ToolCalling,
    ToolCallsAnswered,
    UsageReport,
    Waiting,
    visible,
)
from textual.widget import Widget

from .latest import Latest
from .message import MessageData, MessageView

if TYPE_CHECKING:
    from foldchat.engine import ReplyEvent, Session

Append = Callable[[MessageData], Awaitable[Widget]]


class StatusSaid(Latest):
    """What the status line should say now (a wait, a retry, a recall): the latest is all that counts."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ReplyCounted(Latest):
    """The streaming reply's tokens so far, for the gauge (0 once the reply is over and in the context)."""

    def __init__(self, tokens: int) -> None:
        super().__init__()
        self.tokens = tokens


UI_INTERVAL = 0.2
"""Seconds between two paints of a streaming reply (its deltas are batched in between)."""
GAUGE_INTERVAL = 0.5
"""Seconds between two recounts of a streaming reply for the gauge."""


class Throttle:
    """`due()` is true at most once per `interval` seconds, the first time `interval` after it was made."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.last = time.monotonic()

    def due(self) -> bool:
        now = time.monotonic()
        if now - self.last < self.interval:
            return False
        self.last = now
        return True


class WaitingNote:
    """Until a reply's first event arrives (a local model may read a long prompt for a minute), its
    header and the status line say "waiting for the model… N s", ticking each second, then why when the
    engine says (the local model reads a long context: how far it got and the time left at its measured
    rate, updated as it reads); `stop()` ends it. The seconds come first: a narrow terminal cuts the reason,
    never the count that shows the app is alive."""

    def __init__(self, host: Widget, view: MessageView, model: str) -> None:
        self.host, self.view, self.model = host, view, model
        self.started = time.monotonic()
        self.active = True
        self.said = False  # the status line shows the wait (from the first tick): it is told when it ends
        self.reading = ""  # why it waits, when the engine says (`Waiting`): "reads 4,096 tokens first, about 20 s"
        self.left: tuple[float, float] | None = None  # (seconds left, when said): counted down at each tick
        self.timer = host.set_interval(1.0, self.tick)
        # the status line joins at the first tick: a reply that starts within a second leaves it as it
        # was, so the frame that ends the turn does not span the screen from the status line to the gauge.
        # A view mounted with its prompt already shows the note (`reply_data`): no frame for it here
        self.view.set_note(self.waited())

    def waited(self) -> str:
        now = time.monotonic()
        waited = self.text(now - self.started)
        reading = self.reading
        if self.left is not None:  # between two progress reports (seconds apart under load) it counts down
            left, said = self.left
            reading += f", ~{max(0.0, left - (now - said)):.0f} s left"
        return f"{waited} · {reading}" if reading else waited

    def say(self, reason: str, left: float | None = None) -> None:
        """Why the wait (the model reads a long context first, or waits for its turn): shown before it starts,
        with the seconds `left` when the engine measured them."""
        self.reading = reason
        self.left = None if left is None else (left, time.monotonic())
        self.tick()

    @staticmethod
    def text(seconds: float) -> str:
        """No count before the first second: a view mounted with its prompt shows this from the start,
        which may be before a fold that takes a while, and the note only ticks once its reply is asked for."""
        shown = f"{seconds:.0f}"
        return "waiting for the model…" if shown == "0" else f"waiting for the model… {shown} s"

    def tick(self) -> None:
        if self.active:
            waited = self.waited()
            self.view.set_note(waited)
            self.host.post_message(StatusSaid(f"{self.model} · {waited}"))
            self.said = True

    def stop(self) -> None:
        if self.active:
            self.active = False
            self.timer.stop()
            self.view.set_note("")
            if self.said:  # it said "waiting… 9 s" until the reply ended: it says what happens now
                self.host.post_message(StatusSaid(f"{self.model} · replying…"))


def cut_note(event: Finished, target: ModelTarget) -> str:
    """The mark of a reply the output cap cut off, and how to get the rest."""
    tokens = event.usage.completion_tokens if event.usage else target.max_output_tokens
    return f"[cut at {tokens or '?'} tokens] /continue asks for the rest"


def reply_data(model: str | None) -> MessageData:
    """A reply about to stream (its view shows the wait, then the text)."""
    return MessageData(None, "assistant", "", status="streaming", model=model, note=WaitingNote.text(0))


class ReplyFace:
    """Paints one reply (and the recall rounds it takes) into `view`, event by event; `end()` once it is
    over, `interrupted()` when it was stopped. `host` (the transcript) posts what the screen shows of it;
    `append` adds a message to the transcript (a recall round's results, the reply that follows them)."""

    def __init__(self, host: Widget, append: Append, session: Session, view: MessageView) -> None:
        self.host, self.append, self.session, self.view = host, append, session, view
        self.gauge = Throttle(GAUGE_INTERVAL)
        self.stream = view.reply_stream(UI_INTERVAL, self.recount)
        self.waiting = WaitingNote(host, view, session.target.name)
        self.counting = threading.Lock()
        self.count_running = False
        self.over = False
        """The reply ended (`end`): a count still running then posts nothing (the gauge shows 0)."""

    def recount(self, text: str) -> None:
        # called as a paint ends. Not before GAUGE_INTERVAL: a reply that ends sooner is counted once, at its
        # end (a recount is a round trip to the local server, and the frame holding both the reply's first
        # line and the gauge spans the rows between them); one count at a time, in a thread worker
        if self.gauge.due() and not self.count_running:
            self.count_running = True
            self.host.run_worker(
                partial(self.count, text), name="recount", group="recount", thread=True, exit_on_error=False
            )

    def count(self, text: str) -> None:
        """The reply so far counted, off the UI thread; it touches nothing but `post_message`."""
        try:
            tokens = self.session.counter().count_text(text)
            with self.counting:
                if not self.over:
                    self.host.post_message(ReplyCounted(tokens))
        finally:
            self.count_running = False

    async def show(self, event: ReplyEvent) -> None:
        """One event of the reply, shown. Every kind of `ReplyEvent` has its case: one the engine adds is a
        type error here (`assert_never`) until it is shown or passed over on purpose."""
        view, host = self.view, self.host
        if not isinstance(event, Waiting | PassagesRecalled):  # these come while the model is still awaited
            self.waiting.stop()
        match event:
            case Waiting():  # still waiting, and now it is known why
                self.waiting.say(event.reason, event.left)
            case PassagesRecalled():  # said under the prompt; the reply is still awaited
                await self.show_recalled(event)
            case TextDelta():
                view.data.text += visible(event.text)  # escape bytes from a model never reach the terminal
                self.stream.update(view.data.text)
            case ReasoningDelta():  # shown live, collapsed, not only after a restart
                view.data.reasoning += visible(event.text)
                await view.show_reasoning(view.data.reasoning, streaming=True)
            case Notice():
                host.notify(event.text, title="Sent without", severity="warning", timeout=12)
            case Retrying():
                host.post_message(StatusSaid(f"{event.reason}; retrying in {event.delay:.1f} s…"))
            case ToolCalling():  # the arguments are the model's: only the header shows them
                host.post_message(StatusSaid(f"{self.session.target.name} · recalling …"))
                view.set_note("recalling " + ", ".join(c.arguments for c in event.calls)[:80] + " …")
            case ToolCallsAnswered():
                await self.tool_round(event)
            case Finished():
                view.set_status("complete")
                if event.finish_reason == "length":  # the output cap ended it, mid-word perhaps
                    view.data.cut = True
                    view.set_note(cut_note(event, self.session.target))
            case Failed():
                if not view.data.tool_calls:  # a stored tool round stays what it is; the toast says why
                    view.set_status("error", event.error)
                host.notify(f"{event.error}. /retry tries again; /model picks another model.",
                            title="Reply failed", severity="error", timeout=15)  # fmt: skip
            case ToolCallDelta() | UsageReport():
                pass  # the engine gathers the call (`ToolCalling` shows it) and stores the usage
            case _:
                assert_never(event)

    async def show_recalled(self, event: PassagesRecalled) -> None:
        """What automatic recall put into the request, as a line under the prompt it was found for."""
        for view in self.host.query(MessageView):
            if view.data.role == "user" and view.data.id == event.message_id:
                await view.show_recalled(event.recalled)
                return

    async def tool_round(self, event: ToolCallsAnswered) -> None:
        """A recall round in the transcript, as any tool call is shown: the streamed view becomes the stored
        call, each result follows it, and the next reply (when the model is asked again) streams into a
        new view."""
        view = self.view
        await view.end_stream()
        view.data.id = event.call_id
        view.data.text = visible(event.call.text)
        view.data.tool_calls = tuple((visible(c.name), visible(c.arguments)) for c in event.call.tool_calls)
        view.set_note("")
        view.set_status("complete")
        await view.recompose()
        for result_id, result in event.results:
            name = visible(result.name) if result.name else None
            await self.append(MessageData(result_id, "tool", visible(result.text), tool_name=name))
        if event.more:  # the model is asked again: its reply streams into a new view
            following = await self.append(
                MessageData(None, "assistant", "", status="streaming", model=self.session.target.name)
            )
            assert isinstance(following, MessageView)
            self.view = following
            self.stream = following.reply_stream(UI_INTERVAL, self.recount)
            self.waiting = WaitingNote(self.host, following, self.session.target.name)

    def interrupted(self) -> None:
        self.view.set_status("interrupted", STOPPED)  # as stored: the same words after a restart

    async def end(self) -> None:
        view = self.view
        self.waiting.stop()
        view.data.id = self.session.replies.reply_id  # stored now: it can be pinned like any other message
        await view.end_stream()
        if view.data.reasoning:
            await view.show_reasoning(view.data.reasoning, streaming=False)
        with self.counting:
            self.over = True
        self.host.post_message(ReplyCounted(0))
