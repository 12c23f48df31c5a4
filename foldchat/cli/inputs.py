"""Reading what the user hands the CLI: files, stdin and ids, bounded and checked before anything is stored.

Input is untrusted: it is read at most `limit + 1` bytes (so `/dev/zero` or a 50 MB file is refused
without being read whole), decoded strictly as UTF-8, and JSON that is too deep or holds numbers
too long to convert is a usage error like any other malformed input.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

from foldchat.engine import InputTooLarge, UsageError, read_regular, well_formed


def _source(path: str) -> str:
    return "stdin" if path == "-" else path


def _read_bounded(stream: BinaryIO, limit: int, source: str, setting: str) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(
            f"{source} is larger than {_size(limit)}: the limit is {setting} in config.toml "
            f"(or FOLDCHAT_{setting.upper()})"
        )
    return data


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:g} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{source} is not UTF-8 text (bad byte at offset {error.start})") from None


def read_text(path: str, limit: int, setting: str = "max_input_bytes") -> str:
    """The UTF-8 text of `path` ('-' is stdin), at most `limit` bytes."""
    return _decode(read_bytes(path, limit, setting), _source(path))


def read_bytes(path: str, limit: int, setting: str) -> bytes:
    """The bytes of `path` ('-' is stdin), at most `limit` of them."""
    source = _source(path)
    try:
        if path == "-":
            return _read_bounded(sys.stdin.buffer, limit, source, setting)
        return read_regular(path, limit)  # a named pipe or a device would wait or never end
    except InputTooLarge:
        raise InputTooLarge(
            f"{source} is larger than {_size(limit)}: the limit is {setting} in config.toml "
            f"(or FOLDCHAT_{setting.upper()})"
        ) from None
    except OSError as error:
        raise UsageError(f"cannot read {source}: {error.strerror or error}") from None


def parse_json(text: str, source: str) -> Any:
    try:
        return well_formed(json.loads(text))
    except json.JSONDecodeError as error:
        raise UsageError(f"{source} is not valid JSON: {error.msg} at line {error.lineno}") from None
    except RecursionError:
        raise UsageError(f"{source} is nested too deeply to read as JSON") from None
    except ValueError as error:  # e.g. an integer with more digits than Python converts
        raise UsageError(f"{source} is not usable JSON: {error}") from None


def check_text_argument(text: str, what: str) -> str:
    """Command-line text must be valid UTF-8 (undecodable bytes arrive as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UsageError(f"{what} is not UTF-8 text (bad byte at position {error.start})") from None
    return text
