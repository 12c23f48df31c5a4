"""JSON and numbers we did not write (tool-call arguments, a model's answers, imports), read safely.

`json.loads` on such text can raise more than `JSONDecodeError`: 1,000 levels of nesting raise
RecursionError, a 4,300-digit integer ValueError (Python's limit on int conversion), and either then
poisons every later fold of the conversation that holds it. Every read of JSON or of a number we did not
write goes through here: within size and depth limits it returns the value, otherwise None, and the
caller treats the text as data ("unreadable arguments"), never as an exception.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_JSON_CHARS = 2_000_000  # a tool call's arguments or a summarizer's answer; beyond this it is data
MAX_DEPTH = 64  # real arguments nest a few levels; a thousand is an attack or a broken writer
MAX_DIGITS = 30  # an integer longer than this is an id or noise, kept as its digits (a string)


def depth(text: str) -> int:
    """The deepest nesting of `[`/`{` in `text`, outside strings: one linear pass, no recursion."""
    deepest = level = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def well_formed(value: Any) -> Any:
    """`value` with every lone surrogate in its strings replaced by U+FFFD.

    JSON may spell half a surrogate pair (`"\\ud800"`); Python decodes it to a string that cannot be
    encoded as UTF-8, so it would crash the first write to a terminal, a file or the database. The walk
    is iterative: the value may be as deep as the decoder allowed.
    """
    if isinstance(value, str):
        return _repair(value)
    if not isinstance(value, (list, dict)):
        return value
    pending: list[list[Any] | dict[Any, Any]] = [value]
    while pending:
        container = pending.pop()
        items = container.items() if isinstance(container, dict) else enumerate(container)
        repaired: list[tuple[Any, Any]] = []
        for key, item in items:
            if isinstance(item, str):
                if _has_surrogate(item):
                    repaired.append((key, _repair(item)))
            elif isinstance(item, (list, dict)):
                pending.append(item)
        for key, item in repaired:
            container[key] = item
        if isinstance(container, dict) and any(isinstance(key, str) and _has_surrogate(key) for key in container):
            fixed = {_repair(key) if isinstance(key, str) else key: item for key, item in container.items()}
            container.clear()
            container.update(fixed)
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _repair(text: str) -> str:
    if not _has_surrogate(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _bounded_int(digits: str) -> int | str:
    return int(digits) if len(digits.lstrip("-")) <= MAX_DIGITS else digits


def loads(text: str, strict: bool = True) -> Any | None:
    """The JSON value of `text`, or None when it is not JSON, too large or nested too deep."""
    return _loads(text, strict, _bounded_int, float, float)


def _loads(text: str, strict: bool, parse_int: Any, parse_float: Any, parse_constant: Any) -> Any | None:
    if len(text) > MAX_JSON_CHARS or depth(text) > MAX_DEPTH:
        return None
    try:
        value = json.loads(
            text, strict=strict, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
        )
        return well_formed(value)
    except (ValueError, RecursionError, TypeError):
        return None


def object_text(text: str) -> str | None:
    """`text` when it is a JSON object any strict reader takes back as it is; the same object written
    again when it holds what one would not: an integer past `MAX_DIGITS` (Python stops at 4,300 digits),
    becomes its digits as a string; NaN, Infinity or 1e999 (not JSON once read) their text; a lone surrogate U+FFFD.
    Stored tool-call arguments pass through here before every send: a provider's adapter (litellm's for
    Anthropic) parses them again, and one it cannot parse failed every later request. None when `text`
    is no JSON object (or past the size and depth limits)."""
    rewritten = False

    def as_digits(digits: str) -> int | str:
        nonlocal rewritten
        value = _bounded_int(digits)
        rewritten = rewritten or isinstance(value, str)
        return value

    def as_name(name: str) -> str:
        nonlocal rewritten
        rewritten = True
        return name

    def as_finite(digits: str) -> float | str:
        value = float(digits)
        return value if math.isfinite(value) else as_name(digits)  # 1e999 reads as infinity: not JSON again

    value = _loads(text, True, as_digits, as_finite, as_name)
    if not isinstance(value, dict):
        return None
    if rewritten or "\\ud" in text.lower():  # a surrogate escape may be a lone half, repaired above
        return json.dumps(value, ensure_ascii=False)
    return text


def integer(value: object) -> int | None:
    """A number sent as a number or as digits ("12", "#12"); anything else, or too long, is no number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10**MAX_DIGITS else None
    if isinstance(value, str):
        digits = value.strip().lstrip("#")
        if digits.isascii() and digits.isdigit() and len(digits) <= MAX_DIGITS:
            return int(digits)
    return None
