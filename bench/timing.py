"""Timing helpers shared by the bench scripts (run as `python bench/NAME.py`, so this is importable)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_ms(action: Callable[[], Any], runs: int = 5) -> float:
    """Median wall time of `action` over `runs` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)
