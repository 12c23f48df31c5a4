"""A fold's requests stop when its caller goes away: the blocked call is abandoned, no later call is made."""

from __future__ import annotations

import asyncio
import threading

from foldchat.engine import cancelling


async def test_cancelling_the_caller_stops_the_thread_before_its_next_request():
    started, never = threading.Event(), threading.Event()
    calls: list[int] = []
    ended: list[str] = []

    def fold() -> None:
        try:
            for n in range(3):  # three summarizer calls, the first one held forever
                calls.append(n)
                cancelling.call(lambda: (started.set(), never.wait(30)))
        except cancelling.Cancelled:
            ended.append("cancelled")

    task = asyncio.create_task(cancelling.in_thread(fold))
    await asyncio.to_thread(started.wait, 10)
    task.cancel()
    for _ in range(100):
        if ended:
            break
        await asyncio.sleep(0.05)
    assert ended == ["cancelled"] and calls == [0]


def test_outside_a_cancellable_thread_a_request_simply_runs():
    assert cancelling.call(lambda: 42) == 42
    cancelling.check()  # no caller to go away: nothing raised


async def test_a_request_error_reaches_the_caller_as_raised():
    def fold() -> None:
        cancelling.call(lambda: 1 / 0)

    try:
        await cancelling.in_thread(fold)
    except ZeroDivisionError:
        return
    raise AssertionError("the error was lost")
