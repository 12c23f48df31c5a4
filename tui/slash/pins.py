"""/pin, and a pin asked for on a message: the toast names the message, so a pin never lands unseen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import off_loop

if TYPE_CHECKING:
    from ..host import ChatHost
    from ..widgets.message import MessageView

QUOTE = 48  # characters of the message quoted in the toast


async def pin(screen: ChatHost, _: str) -> None:
    """The message selected last (Tab or a click into the transcript), else the last message of any role."""
    views = [v for v in screen.transcript.message_views() if v.data.id is not None]
    selected = screen.conversation.selected_message
    view = selected if selected is not None and selected in views else (views[-1] if views else None)
    if view is None:
        screen.notify("Nothing to pin yet")
        return
    await toggle_pin(screen, view)


async def toggle_pin(screen: ChatHost, view: MessageView) -> None:
    assert view.data.id is not None
    pinned = not view.pinned
    await off_loop(screen.session.context.pin, view.data.id, pinned)
    numbers = await off_loop(screen.session.context.message_numbers)
    screen.transcript.set_pinned(view, pinned)
    who = {"user": "your message", "assistant": "the reply"}.get(view.data.role, f"the {view.data.role} message")
    words = " ".join(view.data.text.split())
    # cut at a word, and only when enough is left out to matter
    quote = words if len(words) <= QUOTE + 12 else words[:QUOTE].rsplit(" ", 1)[0] + "…"
    which = f"message {numbers.get(view.data.id, view.data.id)}, {who} “{quote}”"
    screen.notify(f"Pinned {which}: quoted verbatim in every snapshot" if pinned else f"Unpinned {which}")
