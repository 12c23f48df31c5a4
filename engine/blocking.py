"""What may block, and the one place a face hops off its event loop for it.

The engine's calls that touch disk or network (the store, the local model's server, a provider's HTTP
client, files read or written) are plain functions: `foldchat ask` calls them as they are, and the
engine's own async code (`Session.turn`, the reply) runs them in a thread itself. A face that runs on an
event loop (the TUI) awaits them through `off_loop` instead of writing `asyncio.to_thread` at each call,
so "does this block?" is answered here once (a face's own helper that reads files, or gathers several engine
reads into one trip, goes through it too), and a later change (a thread pool of our own, a trace of
what runs where, async twins for the hot calls) is made in one place.

`off_loop` is `asyncio.to_thread`: the call runs in the loop's default executor with the caller's
context, and cancelling the awaiting task does not stop it. A fold's requests that must stop when the
caller goes away use `in_thread` (cancelling.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`function(*args, **kwargs)` in a worker thread, awaited: an engine call that may block, from a face's
    event loop (a Textual worker, a message handler)."""
    return await asyncio.to_thread(function, *args, **kwargs)
