"""A turn as the transcript conducts it: the reply worker runs `Session.turn` and paints the reply.

The engine conducts the turn (fold if needed, ask consent, stream, save, recall rounds); `answer` only
shows its events. The reply goes into the transcript (`ReplyFace`); what the rest of the screen shows is
posted up as messages: the fold's progress (`FoldEventPosted`), a fold made (`FoldShown`: the screen
rebuilds the transcript around its marker, and the reply waits for that before it takes a view), a fold
not made (`FoldNotMade`), a prompt refused (`PromptRefused`), and the turn's start and end (`TurnStarted`,
`TurnOver`: the screen recounts the gauge, prepares the next fold, answers a prompt sent meanwhile).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, assert_never, cast

from foldchat.engine import (
    FoldCompleted,
    Folded,
    FoldFailedEvent,
    FoldProgress,
    FoldSkipped,
    FoldStarted,
    PromptStored,
    Refused,
    ReplyAsked,
    TurnEnded,
)
from textual.message import Message
from textual.worker import Worker

from .fold_progress import FoldEventPosted
from .message import MessageView
from .numbering import number_stored
from .reply_face import ReplyFace, reply_data
from .transcript import Transcript

if TYPE_CHECKING:
    from foldchat.engine import Consent, FoldReport, Session


class TurnStarted(Message):
    """A turn began: its reply streams into the transcript."""


class TurnOver(Message):
    """A turn ended (`stopped`: Esc cancelled it); the transcript counts as streaming until the screen has
    handled this (`Transcript.streaming`), so a reply is underway until its gauge is recounted."""

    def __init__(self, session: Session, stopped: bool) -> None:
        super().__init__()
        self.session, self.stopped = session, stopped


class FoldShown(Message):
    """A turn's fold was made. The screen rebuilds the transcript around its marker and sets `shown`; the
    turn waits for it, so its reply takes a view in the rebuilt transcript."""

    def __init__(self, report: FoldReport) -> None:
        super().__init__()
        self.report = report
        self.shown = asyncio.Event()


class FoldNotMade(Message):
    """A turn's fold was skipped, declined or failed (`event` says which and why)."""

    def __init__(self, event: FoldSkipped) -> None:
        super().__init__()
        self.event = event


class PromptRefused(Message):
    """The turn refused the prompt (`message_id`, kept as unsent by the engine): too big for the window."""

    def __init__(self, reason: str, message_id: int | None) -> None:
        super().__init__()
        self.reason, self.message_id = reason, message_id


def start_reply(transcript: Transcript, session: Session, consent: Consent, regenerate: bool = False) -> Worker[None]:
    """The reply worker, the transcript's: one at a time (a second one cancels the first)."""
    return transcript.run_worker(
        partial(answer, transcript, session, consent, regenerate), name="answer", group="reply", exclusive=True,
        exit_on_error=False,
    )  # fmt: skip


def reply_underway(transcript: Transcript) -> bool:
    """A reply streams, or its worker is about to start: it answers every prompt sent before it asks (and
    a second one would cancel it: an interrupted reply and a request the local server still reads)."""
    return transcript.streaming or any(
        w.node is transcript and w.group == "reply" and not w.is_finished and not w.is_cancelled
        for w in transcript.workers
    )


def drop_unused_reply_view(transcript: Transcript) -> None:
    """A prepared reply view that no reply worker is left to take goes (its worker was cancelled before its
    first step: Textual then runs none of its code, not even a `finally`)."""
    prepared = transcript.prepared_reply
    if prepared is not None and not reply_underway(transcript):
        transcript.prepared_reply = None
        if prepared.is_attached:
            transcript.forget(prepared)


async def answer(transcript: Transcript, session: Session, consent: Consent, regenerate: bool) -> None:
    """Run a turn and show it. The reply view mounted with the prompt (`Transcript.prepared_reply`) is used
    if still the transcript's last when the reply starts (no fold rebuilt it, no prompt came after it), else
    removed, or goes with the next prompt if never taken."""
    prepared, transcript.prepared_reply = transcript.prepared_reply, None
    transcript.streaming = True
    transcript.post_message(TurnStarted())
    face: ReplyFace | None = None
    stopped = False
    try:
        async for event in session.turn(consent=consent, regenerate=regenerate):
            match event:
                case TurnEnded() | PromptStored():
                    pass
                case ReplyAsked():  # the wait for the model shows from now on; any fold is over
                    view, prepared = await _reply_view(transcript, session, prepared)
                    face = ReplyFace(transcript, transcript.append, session, view)
                case FoldStarted() | FoldProgress() | FoldCompleted() | FoldFailedEvent():
                    transcript.post_message(FoldEventPosted(event))
                case Folded() | FoldSkipped() | Refused():
                    await _posted(transcript, event)
                case _:  # the reply's own events: a new kind of turn event is a type error here
                    assert face is not None
                    await face.show(event)
    except asyncio.CancelledError:
        stopped = True
        if face is not None:
            face.interrupted()
        raise
    finally:
        if face is not None:
            await face.end()
        number_stored(transcript, session)  # the prompt and its reply at once, as the turn ends: one repaint
        if prepared is not None and prepared.is_attached:
            transcript.forget(prepared)
        transcript.post_message(TurnOver(session, stopped))


async def _posted(transcript: Transcript, event: Folded | FoldSkipped | Refused) -> None:
    """What came of a turn's fold, or its refusal, posted up to the screen (a fold made is waited for: see
    `FoldShown`)."""
    match event:
        case Folded():
            shown = FoldShown(event.report)
            transcript.post_message(shown)
            await shown.shown.wait()
        case FoldSkipped():
            transcript.post_message(FoldNotMade(event))
        case Refused():
            transcript.post_message(PromptRefused(event.reason, event.message_id))
        case _:
            assert_never(event)


async def _reply_view(
    transcript: Transcript, session: Session, prepared: MessageView | None
) -> tuple[MessageView, MessageView | None]:
    """The view for the reply: the one prepared with the prompt while it is the last (taken), else a new one."""
    views = transcript.message_views()
    if prepared is not None and views and views[-1] is prepared:
        return prepared, None
    return cast(MessageView, await transcript.append(reply_data(session.target.name))), prepared
