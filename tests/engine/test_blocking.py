"""`off_loop`: an engine call that may block, awaited from an event loop, runs in another thread."""

from __future__ import annotations

import threading

from foldchat.engine import off_loop


async def test_off_loop_runs_the_call_in_a_thread_with_its_arguments():
    loop_thread = threading.get_ident()

    def call(a: int, *, b: int) -> tuple[int, int]:
        return a + b, threading.get_ident()

    total, ran_in = await off_loop(call, 1, b=2)
    assert total == 3
    assert ran_in != loop_thread
