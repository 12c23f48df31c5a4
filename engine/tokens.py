"""Token accounting: counts per message, cached per tokenizer, and model windows.

Counts come from litellm's `token_counter`, which is additive: a request costs the sum of its messages
plus a fixed reply priming. That lets us count each message once, cache it, and make the gauge cost
O(new text) instead of O(history).
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from .encodings import encoding
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
    """Shared machinery: a per-message cache in front of a raw `_count_one`."""

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
        and keeping them all held megabytes after a few keystrokes on a big paste."""
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


# litellm's own constants for the tiktoken path (litellm/constants.py, litellm_core_utils/token_counter.py)
CHUNK_CHARS = 1024  # TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS: litellm encodes long text in chunks this size
MAX_EXACT_CHARS = 4_000_000  # TOKEN_COUNTER_MAX_EXACT_CHARS: past this, litellm extrapolates from samples
LEGACY_MODEL = "gpt-3.5-turbo-0301"  # 4 tokens per message and -1 per name in litellm
_LITELLM_TUNING = ("TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS", "TOKEN_COUNTER_MAX_EXACT_CHARS", "CUSTOM_TIKTOKEN_CACHE_DIR")


@cache
def litellm_package_dir() -> Path | None:
    """litellm's installed package folder, found without importing it (the import costs seconds)."""
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


@cache
def bundled_model_map() -> Mapping[str, Any]:
    """litellm's bundled model map (windows, prices, providers), read as data; empty when missing."""
    folder = litellm_package_dir()
    try:
        with (folder / "model_prices_and_context_window_backup.json").open() as file:  # type: ignore[operator]
            data = json.load(file)
    except (OSError, TypeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def covered_by_tiktoken(model: str) -> bool:
    """Whether `DirectCounter` gives exactly litellm's counts for `model` (its OpenAI chat models)."""
    entry = bundled_model_map().get(model)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai" or model == LEGACY_MODEL:
        return False
    if "-35" in model or (model.startswith("ft:") and model.count(":") <= 1):  # azure renames; fine-tune keys
        return False
    if any(os.environ.get(name) for name in _LITELLM_TUNING) or litellm_package_dir() is None:
        return False
    return (litellm_package_dir() / "litellm_core_utils" / "tokenizers").is_dir()  # type: ignore[operator]


def _encoding(model: str) -> Any:
    """The tiktoken encoding litellm picks for `model` (its `openai_tokenizer_encoding_name`)."""
    import tiktoken

    name = "o200k_base" if "gpt-4o" in model else None
    if name is None:
        try:
            name = tiktoken.encoding_name_for_model(model)
        except KeyError:
            name = "cl100k_base"
    return encoding(name, litellm_package_dir() / "litellm_core_utils" / "tokenizers")  # type: ignore[operator]


class DirectCounter(CachedCounter):
    """litellm's `token_counter` arithmetic for OpenAI chat models, with tiktoken and no litellm import.

    Per message: 3 tokens, plus every string field (role, content, name + 1, tool_call_id, extras such as
    `reasoning_content`), plus each tool call's arguments; text is encoded in `CHUNK_CHARS` chunks as
    litellm does. A message with parts other than text (images, files) is counted by litellm itself.
    Only models for which `covered_by_tiktoken` holds get one (see `counter_for`).
    """

    def __init__(self, model: str) -> None:
        super().__init__(f"litellm:{model}")
        self.model = model
        self._encode = _encoding(model).encode_ordinary
        self._fallback: LiteLLMCounter | None = None

    def count_text(self, text: str) -> int:
        if len(text) > MAX_EXACT_CHARS:
            return self._litellm().count_text(text)
        encode = self._encode
        return sum(len(encode(text[start : start + CHUNK_CHARS])) for start in range(0, len(text), CHUNK_CHARS))

    def _count_one(self, message: Message) -> int:
        total = 3
        for key, value in message.to_dict().items():
            if value is None:
                continue
            if key == "tool_calls":
                total += sum(self.count_text(str(call["function"].get("arguments", ""))) for call in value)
            elif isinstance(value, str):
                total += self.count_text(value) + (1 if key == "name" else 0)
            elif key == "content" and isinstance(value, list):
                if not all(isinstance(p, str) or p.get("type") == "text" for p in value):
                    return self._litellm().count_message(message)
                total += sum(self.count_text(p if isinstance(p, str) else str(p.get("text", ""))) for p in value)
            elif key == "search_results":
                return self._litellm().count_message(message)
        return total

    def _litellm(self) -> LiteLLMCounter:
        if self._fallback is None:
            self._fallback = LiteLLMCounter(self.model)
        return self._fallback


def counter_for(model: str) -> TokenCounter:
    """A counter for a hosted `model`: direct tiktoken where it matches litellm exactly, else litellm."""
    return DirectCounter(model) if covered_by_tiktoken(model) else LiteLLMCounter(model)


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
    if covered_by_tiktoken(model):  # an exact key of litellm's own map: its entry, read as data
        raw = dict(bundled_model_map()[model])
    else:
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
