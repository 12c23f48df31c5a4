"""Folding while the conversation is idle past the provider's prompt-cache lifetime.

A fold invalidates the cached prefix once. When the cache has expired anyway (nothing sent for five
minutes), the next send pays the full read whatever happens, so a fold that is near (the context is past
the reset ratio) is made then, unasked, and the later sends read the shorter prefix. Armed after each
turn; a new turn re-arms it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from foldchat.engine import off_loop

if TYPE_CHECKING:
    from textual.timer import Timer

    from .host import ChatHost

CHECK_AFTER = 305.0  # seconds after a turn: just past the engine's CACHE_LIFETIME_SECONDS
_timers: WeakKeyDictionary[ChatHost, tuple[Timer, float]] = WeakKeyDictionary()


def arm(screen: ChatHost) -> None:
    """(Re)start the idle check for `screen`'s conversation."""
    if (previous := _timers.get(screen)) is not None:
        previous[0].stop()
    _timers[screen] = (screen.set_timer(CHECK_AFTER, lambda: screen.run_worker(_check(screen))), time.monotonic())


async def _check(screen: ChatHost) -> None:
    session = screen.backend
    armed = _timers.get(screen)
    if session is None or armed is None or screen.conversation.streaming or screen.folding or screen.composer.text:
        return  # something is under way, or being typed: the send will fold if it must
    due = await off_loop(session.auto.idle_fold_due, time.monotonic() - armed[1])
    if due and await screen.fold_history(force=True).wait():
        screen.notify("Folded while idle: the prompt cache had expired, so the next send pays no extra for it")
