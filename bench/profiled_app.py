"""`foldchat` run under cProfile, switched on and off from outside (for bench/stream_profile.py).

Run: python bench/profiled_app.py OUT.prof [foldchat arguments]

SIGUSR1 starts profiling, SIGUSR2 stops it and writes OUT.prof; so start-up and imports stay out
of the figures and only the streaming turns are measured. cProfile sees the main thread, where
Textual, the asyncio workers and litellm's streaming run; threads (`asyncio.to_thread`) are measured
separately by the driver from /proc.
"""

from __future__ import annotations

import cProfile
import signal
import sys
from types import FrameType


def main() -> int:
    out = sys.argv[1]
    sys.argv = ["foldchat", *sys.argv[2:]]
    profiler = cProfile.Profile()

    def start(_signal: int, _frame: FrameType | None) -> None:
        profiler.enable()

    def stop(_signal: int, _frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from foldchat.cli.main import main as foldchat_main

    return foldchat_main()


if __name__ == "__main__":
    sys.exit(main())
