"""/help, /quit, /continue and /retry: the commands that are a key or a prompt too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..widgets.composer import Composer

if TYPE_CHECKING:
    from ..host import ChatHost

CONTINUE_PROMPT = "Please continue exactly where your last reply stopped."


async def help_screen(screen: ChatHost, _: str) -> None:
    await screen.run_action("help")


async def quit_app(screen: ChatHost, _: str) -> None:
    await screen.run_action("app.quit")


async def continue_reply(screen: ChatHost, _: str) -> None:
    """Ask for the rest of a reply the output cap cut off: one ordinary user message, visible as such (sent
    up from the composer as a typed one is, once this command is done). Only the last reply can go on: the
    model is asked to continue its last reply, so after a complete one there is nothing to continue."""
    replies = [data for data in screen.transcript.said() if data.role == "assistant" and not data.superseded]
    if not replies or not replies[-1].cut:
        screen.notify("The last reply was not cut at the output limit: nothing to continue. To ask for more "
                      "anyway, say so in a message.", severity="warning")  # fmt: skip
        return
    screen.composer.post_message(Composer.Submitted(CONTINUE_PROMPT))


async def retry(screen: ChatHost, _: str) -> None:
    screen.conversation.retry()
