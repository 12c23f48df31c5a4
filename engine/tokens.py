"""Token accounting: counts per message, cached per tokenizer, and model windows.

Counts come from litellm's `token_counter`, which is additive: a request costs the sum of its messages
plus a fixed reply priming. That lets us count each message once, cache it, and make the gauge cost
O(new text) instead of O(history).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import UnknownModel
from .lazy import load_litellm
from .messages import Message

REPLY_PRIMING_TOKENS = 3  # litellm counts "<|start|>assistant<|message|>" once per request
CACHE_ENTRIES = 20_000
"""Messages whose counts a counter keeps (least recently used go first): far more than a long agent
session's context holds, so counting the history stays O(new text), yet memory stays bounded."""


class TokenCounter(Protocol):
    """Counts tokens the way a given model's provider will."""

    def count_message(self, message: Message) -> int: ...

    def count_uncached(self, message: Message) -> int:
        """`message` counted without being remembered (text still being typed)."""
        ...

    def count(self, messages: Sequence[Message]) -> int: ...

    def count_text(self, text: str) -> int: ...


class CachedCounter:
    """Shared machinery: a per-message cache in front of a raw `count_one`."""

    def __init__(
        self, tokenizer_key: str, priming: int = REPLY_PRIMING_TOKENS, max_entries: int = CACHE_ENTRIES
    ) -> None:
        self._key = tokenizer_key
        self._priming = priming
        self._max_entries = max_entries
        self._cache: OrderedDict[Message, int] = OrderedDict()
        self._lock = threading.Lock()  # the UI counts typed text in one thread while a fold counts in another

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._key}>"

    def count_message(self, message: Message) -> int:
        with self._lock:
            cached = self._cache.get(message)
            if cached is not None:
                self._cache.move_to_end(message)
                return cached
        counted = self._count_one(message)
        with self._lock:
            self._cache[message] = counted
            if len(self._cache) > self._max_entries:
                self._cache.popitem(last=False)
        return counted

    def count_uncached(self, message: Message) -> int:
        """`message` counted without entering the cache: every composer state is a different message,
        and keeping them all held megabytes after a few keystrokes on a big paste (issue 14)."""
        with self._lock:
            cached = self._cache.get(message)
        return self._count_one(message) if cached is None else cached

    def count(self, messages: Sequence[Message]) -> int:
        if not messages:
            return 0
        return sum(map(self.count_message, messages)) + self._priming

    def count_text(self, text: str) -> int:
        raise NotImplementedError

    def _count_one(self, message: Message) -> int:
        raise NotImplementedError


class LiteLLMCounter(CachedCounter):
    """Counts with `litellm.token_counter` for `model` (tiktoken or the tokenizer litellm ships)."""

    def __init__(self, model: str) -> None:
        super().__init__(f"litellm:{model}")
        self.model = model
        self._litellm = load_litellm()

    def _count_one(self, message: Message) -> int:
        counted = self._litellm.token_counter(
            model=self.model, messages=[message.to_dict()], use_default_image_token_count=True
        )
        return int(counted) - REPLY_PRIMING_TOKENS

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        return int(self._litellm.token_counter(model=self.model, text=text))


class TextCounter(CachedCounter):
    """Counts with any text tokenizer (e.g. a local model's vocabulary) plus a per-message overhead."""

    def __init__(self, key: str, count_text: Callable[[str], int], per_message: int = 4) -> None:
        super().__init__(key, priming=REPLY_PRIMING_TOKENS)
        self._count_text = count_text
        self._per_message = per_message

    def _count_one(self, message: Message) -> int:
        calls = "".join(c.name + c.arguments for c in message.tool_calls)
        return self._per_message + self._count_text(f"{message.role}: {message.text}{calls}")

    def count_text(self, text: str) -> int:
        return self._count_text(text) if text else 0


@dataclass(frozen=True)
class ModelInfo:
    """What litellm's model map knows about a model (window, output cap, prices per token)."""

    model: str
    window: int
    max_output_tokens: int | None
    input_cost_per_token: float
    output_cost_per_token: float


def model_info(model: str, window_override: int | None = None) -> ModelInfo:
    """Window and prices for `model`; `window_override` wins. Unknown models need an override."""
    raw: dict[str, Any] = {}
    try:
        raw = dict(load_litellm().get_model_info(model))
    except Exception:  # litellm raises a bare Exception for unmapped models
        raw = {}
    window = window_override or raw.get("max_input_tokens") or raw.get("max_tokens")
    if not window:
        raise UnknownModel(
            f"unknown model {model!r}: litellm has no context window for it; pass --context-window N "
            "(or set context_window for it in config.toml)"
        )
    return ModelInfo(
        model=model,
        window=int(window),
        max_output_tokens=raw.get("max_output_tokens"),
        input_cost_per_token=float(raw.get("input_cost_per_token") or 0.0),
        output_cost_per_token=float(raw.get("output_cost_per_token") or 0.0),
    )
