"""Conversation ids as the command line takes them: its own module so that parsing `foldchat show 1` loads
neither JSON nor the engine's input checks (inputs.py)."""

from __future__ import annotations

import argparse

SQLITE_MAX_ID = 2**63 - 1


def record_id(text: str) -> int:
    """argparse type for conversation ids: a positive integer SQLite can hold."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an id: {text!r}") from None
    if not 0 < value <= SQLITE_MAX_ID:
        raise argparse.ArgumentTypeError(f"no such id: {text} (ids are positive; foldchat list shows them)")
    return value
