"""A whole turn, conducted by the engine: the prompt stored, a fold when the policy asks for one (with the
face's consent when `fold.auto` says to ask), the reply streamed with its recall rounds, and the turn's
end with what a face needs next. A face (the app's reply worker, `foldchat ask`) only consumes the
events; every blocking step (the database, counting, folding) runs off the event loop here.

The order of events: `PromptStored` (when the turn brings a prompt), or `Refused(up_front=True)` when the
prompt alone cannot fit the window (nothing is stored; the turn ends there), then the fold's own events
(`FoldStarted`, `FoldProgress`, `FoldCompleted`/`FoldFailed`) and one `Folded` or `FoldSkipped` when the
policy asked for a fold, or `Refused` (the turn ends there: the prompt cannot fit, it is kept as unsent),
then `ReplyAsked` and the reply's events (text and reasoning deltas, retries, waits, notices, tool rounds, one `Finished`
or `Failed`), and last `TurnEnded`.

A turn given its prompt makes one trip to a thread for it (checked, stored, the gauge's usage read with it:
`PromptStored`), and `TurnEnded` carries what a face shows after the turn, so a face makes no trip of its
own for either; both faces refuse a prompt too big for the window the same way, here.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypedDict

from . import cancelling
from .attachments import Attachment
from .cancelling import Cancelled
from .errors import CurrentTurnTooLarge, FoldchatError
from .events import FoldEvent
from .fold.report import FoldReport
from .replies import ReplyEvent
from .turn_events import Folded, FoldSkipped, PromptStored, Refused, ReplyAsked, TurnEnded

if TYPE_CHECKING:
    from .autofold import AutoFold
    from .context import Context, Usage
    from .providers.target import ModelTarget
    from .replies import Replies
    from .store import Conversation, Store


Consent = Callable[[FoldReport], Awaitable[bool]]
"""Asked when the policy wants a fold and `fold.auto` says to ask: True folds, False sends unfolded."""


class TurnOptions(TypedDict, total=False):
    """What a turn may be given besides its prompt (see `run_turn`)."""

    attachments: Sequence[Attachment]
    consent: Consent | None
    regenerate: bool


class TurnSession(Protocol):
    """What a turn drives of the session (`session.Session` is one): named here, so this module needs
    nothing of the session's."""

    auto: AutoFold
    store: Store
    context: Context
    replies: Replies

    @property
    def target(self) -> ModelTarget: ...
    def usage(self, target: ModelTarget | None = None) -> Usage: ...
    def conversation(self) -> Conversation | None: ...
    def add_user_message(self, text: str, attachments: Sequence[Attachment] = ()) -> int: ...
    def reply(self, regenerate: bool = False) -> AsyncIterator[ReplyEvent]: ...


TurnEvent = PromptStored | FoldEvent | Folded | FoldSkipped | Refused | ReplyAsked | ReplyEvent | TurnEnded


async def run_turn(
    session: TurnSession,
    prompt: str | None = None,
    *,
    attachments: Sequence[Attachment] = (),
    consent: Consent | None = None,
    regenerate: bool = False,
) -> AsyncIterator[TurnEvent]:
    """Run one turn of `session` (see the module docstring). Without `prompt` the turn answers what is
    unanswered (a prompt stored earlier, or `regenerate`). Without `consent` nobody can be asked: a fold
    waiting for consent is skipped, and a context that would not fit unfolded is refused."""
    message_id = None
    if prompt is not None:
        stored = await asyncio.to_thread(_store_prompt, session, prompt, attachments)
        yield stored
        if isinstance(stored, Refused):
            yield await _end(session, refused=True)
            return
        message_id = stored.message_id
    if message_id is None and not regenerate:
        message_id = await asyncio.to_thread(_unanswered_prompt, session)
    refused = False
    async for event in _fold_before_reply(session, consent, message_id):
        refused = refused or isinstance(event, Refused)
        yield event
    if not refused:
        yield ReplyAsked()
        async for reply_event in session.reply(regenerate=regenerate):
            yield reply_event
    yield await _end(session, refused)


def _store_prompt(session: TurnSession, prompt: str, attachments: Sequence[Attachment]) -> PromptStored | Refused:
    """The prompt checked against the window and stored, with what a face shows of it, in one trip. A prompt
    no fold can make room for is refused before it is stored (`Refused.up_front`): nothing is kept."""
    problem = session.context.too_big_to_send(session.target, prompt)
    if problem is not None:
        return Refused(problem, None, up_front=True)
    message_id = session.add_user_message(prompt, attachments)
    return PromptStored(message_id, session.usage(), session.conversation())


async def _end(session: TurnSession, refused: bool) -> TurnEnded:
    """What a face shows after the turn, read in one trip (`TurnEnded`)."""

    def read() -> TurnEnded:
        reply_id = None if refused else session.replies.reply_id
        usage, due = session.usage(), session.auto.prefold_due()
        return TurnEnded(usage, due, reply_id, session.replies.usage_totals(), session.context.message_numbers())

    return await asyncio.to_thread(read)


def _unanswered_prompt(session: TurnSession) -> int | None:
    last = session.context.last_prompt()
    return None if last is None else last.id


async def _fold_before_reply(
    session: TurnSession, consent: Consent | None, message_id: int | None
) -> AsyncIterator[TurnEvent]:
    """The fold the policy asks for before a send, its progress as it happens, and what came of it."""
    outcome: list[FoldReport | BaseException | None] = []
    async for event in _in_thread(lambda sink: session.auto.fold_if_needed(sink), outcome):
        yield event
    report = outcome[-1]
    if isinstance(report, FoldReport) and report.awaiting_consent:
        if consent is not None and await consent(report):
            async for event in _in_thread(lambda sink: session.auto.fold_if_needed(sink, True), outcome):
                yield event
            report = outcome[-1]
        else:
            if consent is not None:
                await asyncio.to_thread(session.auto.decline)
            yield await _unfolded(session, report, message_id)
            return
    if isinstance(report, CurrentTurnTooLarge):
        yield await _refuse(session, message_id, str(report), f"not sent: too big for {session.target.name}")
    elif isinstance(report, FoldchatError):
        yield FoldSkipped(str(report), failed=True)
    elif isinstance(report, BaseException):
        raise report
    elif isinstance(report, FoldReport) and report.compressed:
        yield Folded(report)
    elif isinstance(report, FoldReport) and report.failed:
        yield FoldSkipped(report.reason, failed=True, report=report)


async def _unfolded(session: TurnSession, report: FoldReport, message_id: int | None) -> FoldSkipped | Refused:
    """A fold the user declined or nobody could consent to: the reply goes unfolded when the context fits,
    and the prompt is refused (`needs_fold`) when it does not."""
    usage = await asyncio.to_thread(session.usage)
    if usage.used <= usage.window:
        return FoldSkipped(report.reason, report=report)
    reason = (
        f"the conversation needs {usage.tokens:,} tokens and {usage.reserved:,} for the reply, over "
        f"{session.target.name}'s {usage.window:,}-token window, and fold.auto is {session.auto.mode}"
    )
    refused = await _refuse(session, message_id, reason, f"not sent: over {session.target.name}'s window")
    return Refused(refused.reason, refused.message_id, needs_fold=True)


async def _refuse(session: TurnSession, message_id: int | None, reason: str, mark: str) -> Refused:
    if message_id is not None:
        await asyncio.to_thread(session.store.mark_unsent, message_id, mark)
    return Refused(reason, message_id)


_DONE = object()


async def _in_thread(
    fold: Callable[[Callable[[FoldEvent], None]], FoldReport | None], outcome: list[FoldReport | BaseException | None]
) -> AsyncIterator[FoldEvent]:
    """Run `fold` in a thread, yielding the events it reports as they happen; its result (or the error it
    raised) is appended to `outcome`."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[object] = asyncio.Queue()
    stop = threading.Event()

    def sink(event: FoldEvent) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, event)

    def run() -> None:
        try:
            outcome.append(fold(sink))
        except Exception as error:  # handed to the turn, which says what it means
            outcome.append(error)
        except Cancelled:  # the turn went away (Esc, quit): nothing was kept, nobody is told
            outcome.append(None)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, _DONE)

    task = asyncio.create_task(cancelling.in_thread(run, stop))
    try:
        while (item := await queue.get()) is not _DONE:
            yield item  # type: ignore[misc]
        await task
    finally:  # the consumer went away mid-fold: its remaining requests are not made
        stop.set()
