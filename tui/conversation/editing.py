"""Editing an earlier prompt in the composer (↑ in an empty composer, `e` on a message): Enter resends it
(the messages after it are superseded, kept in the transcript), Esc cancels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, off_loop, said

from ..widgets.composer import Composer

if TYPE_CHECKING:
    from ..host import Sender

EDITING_HINT = "Editing an earlier prompt · Enter resend (later messages are replaced) · Esc cancel"


async def edit_last(conversation: Sender) -> None:
    """The last prompt (editing one already: ↑ on its first line walks back to the one before)."""
    if conversation.backend is None:
        return
    before = conversation.editing
    last = await off_loop(conversation.backend.context.last_prompt, before)
    if last is None:
        conversation.notify("No earlier prompt" if before is not None else "No prompt to edit yet")
        return
    start_editing(conversation, last.id, said(last.message))  # its attachments stay with it (Context.edit_and_resend)


def start_editing(conversation: Sender, message_id: int, text: str) -> None:
    if conversation.streaming:
        conversation.notify("A reply is streaming: Esc stops it, then edit", severity="warning")
        return
    conversation.editing = message_id
    composer = conversation.composer
    composer.text = text
    composer.border_title = EDITING_HINT
    composer.add_class("-editing")
    composer.focus()
    composer.move_cursor(composer.document.end)


def stop_editing(conversation: Sender) -> None:
    conversation.editing = None
    composer = conversation.composer
    composer.border_title = Composer.HINT
    composer.remove_class("-editing")


async def resend(conversation: Sender, message_id: int, text: str) -> None:
    """Supersede the prompt and what follows it, store `text` as the new prompt and answer it."""
    stop_editing(conversation)
    try:
        _, undone = await off_loop(conversation.session.context.edit_and_resend, message_id, text)
    except FoldchatError as error:
        conversation.notify(str(error), title="Cannot resend", severity="error", markup=False)
        return
    await conversation.refresh_transcript()
    if undone:
        folds = ", ".join(str(f) for f in undone)
        conversation.notify(f"Fold {folds} undone: it covered the edited prompt", title="Edited", severity="warning")
    conversation.stream_reply()
