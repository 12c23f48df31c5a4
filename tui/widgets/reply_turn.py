"""A turn as the transcript conducts it: the reply worker runs `Session.turn` and paints the reply.

The engine conducts the turn (store the prompt it is handed, fold if needed, ask consent, stream, save,
recall rounds); `answer` only shows its events. The reply goes into the transcript (`ReplyFace`); what the
rest of the screen shows is posted up as messages: the prompt stored (`PromptSaved`: the gauge with it, the
title), the fold's progress (`FoldEventPosted`), a fold made (`FoldShown`: the screen rebuilds the
transcript around its marker, and the reply waits for that before it takes a view), a fold not made
(`FoldNotMade`), a prompt refused (`PromptRefused`), and the turn's start and end (`TurnStarted`,
`TurnOver` with the engine's `TurnEnded`: the screen shows its usage, prepares the next fold, answers a
prompt sent meanwhile, asking the engine nothing again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
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
from .message import MessageData, MessageView
from .numbering import number_stored, numbered
from .reply_face import ReplyFace, reply_data
from .transcript import Transcript

if TYPE_CHECKING:
    from foldchat.engine import Attachment, Consent, Conversation, FoldReport, Session, Usage


class TurnStarted(Message):
    """A turn began: its reply streams into the transcript."""


@dataclass(frozen=True)
class Prompt:
    """A prompt handed to the turn, which stores it: its text and attachments, and the data of its view
    (which learns its id once stored)."""

    text: str
    attachments: Sequence[Attachment]
    data: MessageData


class TurnOver(Message):
    """A turn ended (`stopped`: Esc cancelled it); the transcript counts as streaming until the screen has
    handled this (`Transcript.streaming`), so a reply is underway until its gauge is recounted. `ended`: the
    engine's end of the turn (usage, pre-fold due, cost), None when it was stopped before its end."""

    def __init__(self, session: Session, stopped: bool, ended: TurnEnded | None = None) -> None:
        super().__init__()
        self.session, self.stopped, self.ended = session, stopped, ended


class PromptSaved(Message):
    """The turn stored its prompt: the gauge's `usage` with it, and the `conversation` (titled by its first)."""

    def __init__(self, usage: Usage, conversation: Conversation | None) -> None:
        super().__init__()
        self.usage, self.conversation = usage, conversation


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
    """The turn refused the prompt, too big for the window: kept as unsent by the engine (`message_id`), or
    refused before it was stored (`given_back`: the prompt, its view gone, its text and attachments to give back)."""

    def __init__(self, reason: str, message_id: int | None, given_back: Prompt | None = None) -> None:
        super().__init__()
        self.reason, self.message_id, self.given_back = reason, message_id, given_back


def start_reply(
    transcript: Transcript, session: Session, consent: Consent, regenerate: bool = False, prompt: Prompt | None = None
) -> Worker[None]:
    """The reply worker, the transcript's: one at a time (a second one cancels the first). With `prompt`, the
    turn stores it first."""
    return transcript.run_worker(
        partial(answer, transcript, session, consent, regenerate, prompt), name="answer", group="reply",
        exclusive=True, exit_on_error=False,
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


async def answer(
    transcript: Transcript, session: Session, consent: Consent, regenerate: bool, prompt: Prompt | None = None
) -> None:
    """Run a turn (storing `prompt` first, when given) and show it. The reply view mounted with the prompt
    (`Transcript.prepared_reply`) is used if still the transcript's last when the reply starts (no fold
    rebuilt it, no prompt came after it), else removed, or goes with the next prompt if never taken."""
    prepared, transcript.prepared_reply = transcript.prepared_reply, None
    transcript.streaming = True
    transcript.post_message(TurnStarted())
    face: ReplyFace | None = None
    stopped = False
    ended: TurnEnded | None = None
    text, attachments = (None, ()) if prompt is None else (prompt.text, prompt.attachments)
    try:
        async for event in session.turn(text, attachments=attachments, consent=consent, regenerate=regenerate):
            match event:
                case TurnEnded():
                    ended = event
                case PromptStored():
                    assert prompt is not None
                    prompt.data.id = event.message_id
                    transcript.post_message(PromptSaved(event.usage, event.conversation))
                case Refused() if event.up_front:
                    assert prompt is not None
                    _take_back(transcript, prompt)
                    transcript.post_message(PromptRefused(event.reason, None, prompt))
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
        # the prompt and its reply at once, as the turn ends: one repaint (a stopped turn asks for the numbers)
        if ended is not None:
            numbered(transcript, ended.numbers)
        else:
            number_stored(transcript, session)
        if prepared is not None and prepared.is_attached:
            transcript.forget(prepared)
        transcript.post_message(TurnOver(session, stopped, ended))


def _take_back(transcript: Transcript, prompt: Prompt) -> None:
    """A prompt refused before it was stored leaves the transcript (its text goes back to the composer)."""
    view = next((v for v in transcript.message_views() if v.data is prompt.data), None)
    if view is not None:
        transcript.forget(view)
    else:
        transcript.items = [item for item in transcript.items if item is not prompt.data]


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
