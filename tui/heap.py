"""What the app keeps for its whole run leaves the garbage collector's view (issue 12)."""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Called once a model is ready, when everything loaded for it (Textual, the engine, litellm for a
    provider) is loaded and will live as long as the app. A full collection walked all of it: ~60 ms on
    the UI thread every few turns of a chat, a stall in the middle of a reply. Frozen, collections walk
    only what came after. Collected first, so no garbage is frozen with it."""
    gc.collect()
    gc.freeze()
