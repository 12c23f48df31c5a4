"""Editing an earlier prompt in the composer (↑ in an empty composer, `e` on a message): Enter resends it
(the messages after it are superseded, kept in the transcript), Esc cancels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, off_loop, said

from ..widgets.composer import Composer

if TYPE_CHECKING:
    from ..host import ChatHost

EDITING_HINT = "Editing an earlier prompt · Enter resend (later messages are replaced) · Esc cancel"


async def edit_last(screen: ChatHost) -> None:
    """The last prompt (editing one already: ↑ on its first line walks back to the one before)."""
    if screen.backend is None:
        return
    before = screen.editing
    last = await off_loop(screen.backend.context.last_prompt, before)
    if last is None:
        screen.notify("No earlier prompt" if before is not None else "No prompt to edit yet")
        return
    start_editing(screen, last.id, said(last.message))  # its attachments stay with it (Context.edit_and_resend)


def start_editing(screen: ChatHost, message_id: int, text: str) -> None:
    if screen.streaming:
        screen.notify("A reply is streaming: Esc stops it, then edit", severity="warning")
        return
    screen.editing = message_id
    composer = screen.composer
    composer.text = text
    composer.border_title = EDITING_HINT
    composer.add_class("-editing")
    composer.focus()
    composer.move_cursor(composer.document.end)


def stop_editing(screen: ChatHost) -> None:
    screen.editing = None
    composer = screen.composer
    composer.border_title = Composer.HINT
    composer.remove_class("-editing")


async def resend(screen: ChatHost, message_id: int, text: str) -> None:
    """Supersede the prompt and what follows it, store `text` as the new prompt and answer it."""
    stop_editing(screen)
    try:
        _, undone = await off_loop(screen.session.context.edit_and_resend, message_id, text)
    except FoldchatError as error:
        screen.notify(str(error), title="Cannot resend", severity="error", markup=False)
        return
    await screen.refresh_transcript()
    if undone:
        folds = ", ".join(str(f) for f in undone)
        screen.notify(f"Fold {folds} undone: it covered the edited prompt", title="Edited", severity="warning")
    screen.stream_reply()
