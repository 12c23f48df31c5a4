"""/new, /history (resume, rename, delete), /system and /export."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, off_loop, visible
from textual.worker import WorkerCancelled, WorkerFailed

if TYPE_CHECKING:
    from ..host import ChatHost
    from ..screens.history import ConversationRow, HistoryAction


async def new(screen: ChatHost, _: str) -> None:
    await switch_conversation(screen, None)


async def stop_reply(screen: ChatHost) -> None:
    """Stop the reply that streams, as Esc does, and wait until its partial is stored: in the conversation
    it belongs to, before another one is opened. (Its worker is the transcript's, not the screen's: a
    cancel of the screen's "reply" group left it streaming into a conversation no longer shown.)"""
    streaming = [w for w in screen.app.workers if w.group == "reply" and not w.is_finished]
    for worker in streaming:
        worker.cancel()
    for worker in streaming:
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()
    screen.notify("Stopped: the partial reply is kept")


async def switch_conversation(screen: ChatHost, conversation_id: int | None, at: int | None = None) -> None:
    """Open `conversation_id` (None: a new one) at its end, or at message `at`, selected (a search's match)."""
    session = screen.session
    if screen.conversation.streaming:
        await stop_reply(screen)
    screen.cancel_workers("prefold")  # the session also drops what it would have prepared
    previous = session.target.name
    screen.conversation.keep_draft()
    screen.composer.clear()
    await off_loop(session.switch_conversation, conversation_id)
    screen.transcript.welcome_due = True  # another conversation: welcomed if it is empty
    await screen.refresh_transcript(at=at)
    screen.conversation.restore_draft()
    if session.target.name != previous:
        screen.prepare_model()
    opened = session.conversation_id
    match = next((d.number for d in screen.transcript.said() if at is not None and d.id == at), None)
    where = f" · opened at #{match}, the message that matched (selected)" if match is not None else ""
    screen.notify(
        f"Conversation {opened}{where}" if opened is not None else "New conversation: stored with its first message"
    )


async def history(screen: ChatHost, _: str) -> None:
    from ..screens.history import ConversationRow, HistoryScreen

    session = screen.session
    rows = [
        ConversationRow(c.id, c.title, c.model, c.updated_at, c.message_count)
        for c in await off_loop(session.workspace.conversations)
    ]

    def search(text: str) -> list[ConversationRow]:
        return [
            ConversationRow(h.conversation.id, h.conversation.title, h.conversation.model,
                            h.conversation.updated_at, h.conversation.message_count, visible(h.excerpt), h.message_id)
            for h in session.workspace.search(text)
        ]  # fmt: skip

    async def done(action: HistoryAction | None) -> None:
        if action is not None and screen.backend is not None:
            await _history_done(screen, action)

    screen.app.push_screen(HistoryScreen(rows, search), done)


async def _history_done(screen: ChatHost, action: HistoryAction) -> None:
    session = screen.session
    if action.action == "resume":
        await switch_conversation(screen, action.conversation_id, at=action.message_id)
    elif action.action == "rename":
        await off_loop(session.workspace.rename, action.conversation_id, action.title)
        await screen.refresh_title()
        screen.notify(f"Renamed to “{action.title}”")
    elif action.action == "delete":
        if action.conversation_id == session.conversation_id:
            screen.notify("That is the open conversation: /new first, then delete it", severity="warning")
            return
        await off_loop(session.workspace.delete, action.conversation_id)
        screen.notify(f"Conversation {action.conversation_id} deleted")


async def system(screen: ChatHost, arg: str) -> None:
    if not arg:
        prompts = await off_loop(screen.session.system_prompts)
        screen.notify("\n".join(prompts) or "No system prompt. /system TEXT sets one.", title="System prompt")
        return
    await off_loop(screen.session.set_system_prompt, arg)
    await screen.refresh_transcript()
    screen.notify("System prompt set")


async def export(screen: ChatHost, arg: str) -> None:
    fmt = arg or "md"
    if fmt not in ("md", "json"):
        screen.notify("Use /export md or /export json", severity="warning")
        return
    try:  # an unwritable exports folder is a message, not a crash
        path = await off_loop(screen.session.write_export, fmt)
    except FoldchatError as error:
        screen.notify(str(error), title="Export failed", severity="error", markup=False)
        return
    screen.notify(f"Exported to {path}", title="Exported", markup=False)
