"""Counting what the calls made on a caller's behalf cost (the summarizer's, during a fold).

The fold sets a meter around its work (`metered`); each summarizer call adds the usage its provider
reported, priced (`add`). A preview's calls are paid whether or not the fold is kept, so the caller
stores what the meter holds either way.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .events import UsageReport
from .pricing import priced
from .target import ModelTarget

_meter: contextvars.ContextVar[list[UsageReport] | None] = contextvars.ContextVar("foldchat_meter", default=None)


@contextmanager
def metered() -> Iterator[list[UsageReport]]:
    """The usages added while the block runs (in this thread's context)."""
    spent: list[UsageReport] = []
    token = _meter.set(spent)
    try:
        yield spent
    finally:
        _meter.reset(token)


def add(usage: UsageReport) -> None:
    if (spent := _meter.get()) is not None:
        spent.append(usage)


def add_response(response: Any, target: ModelTarget) -> None:
    """A non-streamed litellm response's usage, priced for `target`; one without usage adds nothing."""
    reported = getattr(response, "usage", None)
    if reported is not None and getattr(reported, "prompt_tokens", None) is not None:
        add(priced(reported, target))
