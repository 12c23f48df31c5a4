"""Which model writes snapshots when `summarizer = "auto"`: the provider's small model.

On a hosted model, the summarizer is the cheapest chat model litellm's model map lists for the same
provider (window at least `MIN_SUMMARIZER_WINDOW`; dated snapshots, previews, fine-tunes and audio or
realtime variants left out), when it is cheaper than the chat model; config's `summarizer_model` names
one instead. A self-hosted or proxied endpoint (an `api_base`, or a base URL from the environment)
serves only what it serves, so it summarizes with the chat model itself. The local model is a tiny base
model whose snapshots are worse than the rules summarizer's: auto means rules there.
"""

from __future__ import annotations

import re
from typing import Any

from .lazy import load_litellm
from .providers.stream import base_from_environment
from .providers.target import ModelTarget

MIN_SUMMARIZER_WINDOW = 32_000
_SKIP = re.compile(r"\d{4}-?\d{2}-?\d{2}|preview|realtime|audio|search|latest|exp|tts|transcribe", re.I)


def small_model(target: ModelTarget) -> str | None:
    """The litellm name of `target`'s provider's cheapest suitable chat model, if cheaper than `target`."""
    if target.backend.on_this_machine or target.api_base or base_from_environment(target) is not None:
        return None
    model_map: dict[str, Any] = load_litellm().model_cost
    info = model_map.get(target.litellm_model) or model_map.get(target.litellm_model.split("/", 1)[-1])
    if not info:
        return None
    provider = info.get("litellm_provider")
    price = _price(info)
    candidates = [
        (_price(entry), name)
        for name, entry in model_map.items()
        if entry.get("litellm_provider") == provider and _suitable(name, entry)
    ]
    if not candidates:
        return None
    cheapest_price, cheapest = min(candidates)
    return cheapest if cheapest_price < price else None


def _price(info: dict[str, Any]) -> float:
    return float(info.get("input_cost_per_token") or 0) + float(info.get("output_cost_per_token") or 0)


def _suitable(name: str, entry: dict[str, Any]) -> bool:
    return (
        entry.get("mode") == "chat"
        and not name.startswith("ft:")
        and _SKIP.search(name) is None
        and _price(entry) > 0
        and int(entry.get("max_input_tokens") or 0) >= MIN_SUMMARIZER_WINDOW
    )
