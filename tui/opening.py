"""The chat screen's start-up: the conversation opened (`open_session`), then its model started
(`prepare_model`, again after a switch), both in the screen's start-up workers.

The session and what the transcript shows are opened in a worker thread with the engine's imports
(~0.25 s of pydantic models): imported on the UI thread, they held back the composer's first frame.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, off_loop

from .heap import settle_heap
from .widgets.gauge import GaugeState

if TYPE_CHECKING:
    from foldchat.engine import OpenOptions, Session

    from .host import ChatHost
    from .presenters import TranscriptState


async def open_session(screen: ChatHost) -> None:
    """Open the conversation, show it, load litellm (seconds: after the transcript is drawn), then start the
    model. What was typed meanwhile waits in the conversation (`Conversation.queued`)."""
    screen.status = "opening the conversation…"
    try:
        session, state = await off_loop(open_backend, screen.options)
        await screen.transcript.show(state.items, pinned=state.pinned, folded_upto=state.folded_upto)
        screen.status = "loading model support…"
        await painted(screen)  # litellm's import in a thread holds the GIL: the transcript is drawn first
        await off_loop(session.connect)
    except FoldchatError as error:
        screen.status = f"could not start: {error}"
        screen.notify(str(error), title="Foldchat could not start", severity="error", timeout=30)
        return
    screen.backend = session  # the conversation's (ChatScreen.backend)
    await screen.refresh_title()
    for title, problem in state.opening_notices(session):
        screen.notify(problem, title=title, severity="warning", markup=False)
    app, remembered = screen.app, session.workspace.remembered
    theme = remembered.theme or session.settings.theme  # the last chosen wins; kept when changed
    if theme in app.available_themes:
        app.theme = theme
    screen.watch(app, "theme", lambda chosen: remembered.set_theme(chosen), init=False)
    screen.conversation.restore_draft()
    if await screen.conversation.send_queued():
        await screen.refresh_transcript()
    else:
        spent = state.spent
        screen.gauge_state = GaugeState(cost=spent.cost, cached_share=spent.cached_share, note="counting…")
    screen.prepare_model()


async def painted(screen: ChatHost) -> None:
    """Return once the screen has been refreshed with what is mounted now."""
    drawn = asyncio.Event()
    screen.call_after_refresh(drawn.set)
    await drawn.wait()


async def prepare_model(screen: ChatHost) -> None:
    """Start the session's model (the local server, or a provider's first contact), the status line saying
    how far along; then the gauge, the composer's count, and a prompt left unanswered."""
    session = screen.session
    screen.model_ready = False
    screen.composer.count = None  # nothing is counted while the model starts
    name = session.target.name
    screen.status = f"starting {name}…" if session.target.is_local else f"model: {name}"

    def progress(step: str, done: int, total: int) -> None:
        percent = f" {100 * done // total}%" if total > 1 else ""
        screen.app.call_from_thread(setattr, screen, "status", f"{step}{percent}…")

    try:
        await off_loop(session.prepare_model, progress, True)
        await off_loop(session.typed_tokens, "warm up the tokenizer")
    except FoldchatError as error:
        screen.status = f"{name}: {error}"
        screen.notify(f"{error}. Pick another model with /model.", title="Model not available", severity="error")
        return
    settle_heap()
    try:
        await screen.refresh_usage()  # the gauge is right by the time the model counts as ready
    finally:  # a count that fails must not leave every later prompt queued
        screen.model_ready = True
        screen.status = screen.model_status()
    composer = screen.composer  # it counts what is typed from now on (the session's current model)
    composer.count = lambda text: session.typed_tokens(text)
    composer.recount()  # a draft restored, or typed while the model started
    screen.conversation.answer_unanswered()


def open_backend(options: OpenOptions) -> tuple[Session, TranscriptState]:
    from foldchat.engine import Session, Workspace

    from .presenters import transcript_state

    workspace = Workspace.open(options)
    # read here: a file read on the UI thread could hang it (a FIFO as ui-state.json)
    if options.conversation is None and not options.new and workspace.remembered.left_in_new_draft:
        # the app was left while typing in a new conversation not saved yet: it opens there again, with the
        # draft (it opened the latest conversation, and the draft came back only with the next /new)
        options = options._replace(new=True)
    session = Session.open(options, workspace)
    return session, transcript_state(session)
