"""What the app keeps for its whole run leaves the garbage collector's view, so collections stop stalling the UI."""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Called once a model is ready, when everything loaded for it (Textual, the engine, litellm for a
    provider) is loaded and will live as long as the app. A full collection walked all of it on the UI
    thread every few turns of a chat, a stall in the middle of a reply: ~60 ms with the local model,
    ~150 ms with litellm loaded. Frozen, collections walk only what came after.

    The young generations are collected first (what start-up just threw away); a full collection here
    would be that stall once more, right when the user starts typing, and finds next to nothing: the
    collector has been running all along."""
    gc.collect(1)
    gc.freeze()
