"""Stopping a fold's requests when its caller goes away (Ctrl+Q, Esc): no later call is made, and the one in
flight is no longer waited for.

A fold runs in a worker thread and its summarizer calls block there. Cancelling the asyncio task that
awaits it stops nothing in the thread, and at exit Python joins that thread: quitting took as long as
the fold, and the remaining calls were still made and paid for. `in_thread` runs a function as
`asyncio.to_thread` does, with a stop flag in its context (to_thread copies the context into the thread);
`call` makes one blocking request on a daemon thread and gives up on it as soon as the flag is set,
raising `Cancelled`, which no `except Exception` fallback catches: nothing half-made is kept.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
POLL_SECONDS = 0.05  # how soon a stop is noticed while a request is in flight

_stop: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("foldchat_stop", default=None)


class Cancelled(BaseException):
    """The caller went away: stop now. A BaseException, as asyncio's own, so fallbacks do not swallow it."""


async def in_thread(function: Callable[[], T], stop: threading.Event | None = None) -> T:
    """`function()` in a worker thread; if the awaiting task is cancelled, the thread is told to stop."""
    stop = stop or threading.Event()
    token = _stop.set(stop)
    try:
        return await asyncio.to_thread(function)
    except asyncio.CancelledError:
        stop.set()
        raise
    finally:
        _stop.reset(token)


def stop_requested() -> bool:
    flag = _stop.get()
    return flag is not None and flag.is_set()


def check() -> None:
    """Raise `Cancelled` if the caller has gone away."""
    if stop_requested():
        raise Cancelled


def call(request: Callable[[], T]) -> T:
    """`request()` (a blocking HTTP call), abandoned with `Cancelled` as soon as a stop is asked for.

    Outside `in_thread` it simply runs. Inside, it runs on a daemon thread (never joined at exit) and the
    caller polls the stop flag while it waits.
    """
    flag = _stop.get()
    if flag is None:
        return request()
    check()
    done = threading.Event()
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(request())
        except BaseException as error:  # handed to the caller's thread as it was raised
            failure.append(error)
        finally:
            done.set()

    threading.Thread(target=run, name="foldchat-request", daemon=True).start()
    while not done.wait(POLL_SECONDS):
        if flag.is_set():
            raise Cancelled
    if failure:
        raise failure[0]
    return result[0]
