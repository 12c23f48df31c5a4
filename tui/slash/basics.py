"""/help, /quit, /continue and /retry: the commands that are a key or a prompt too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..widgets.composer import Composer

if TYPE_CHECKING:
    from ..screens.chat import ChatScreen

CONTINUE_PROMPT = "Please continue exactly where your last reply stopped."


async def help_screen(screen: ChatScreen, _: str) -> None:
    await screen.run_action("help")


async def quit_app(screen: ChatScreen, _: str) -> None:
    await screen.run_action("app.quit")


async def continue_reply(screen: ChatScreen, _: str) -> None:
    """Ask for the rest of a reply the output cap cut off: one ordinary user message, visible as such."""
    await screen.on_composer_submitted(Composer.Submitted(CONTINUE_PROMPT))


async def retry(screen: ChatScreen, _: str) -> None:
    screen.action_retry()
