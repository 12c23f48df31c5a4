"""tiktoken encodings from the files litellm ships, loaded without importing litellm, and kept ready.

This machine cannot download encodings (docs/design.md §11); litellm bundles cl100k and o200k and points tiktoken
at them when imported. `encoding` does the same without the import: it sets `TIKTOKEN_CACHE_DIR` to
litellm's folder, as litellm does. Parsing o200k's 200k base64 lines costs most of a second on every
start, so the parsed ranks (public data) are kept in Foldchat's cache dir as one marshal file, private,
and rebuilt whenever tiktoken's version or litellm's file changes.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from functools import cache
from pathlib import Path
from typing import Any

from .paths import cache_dir, create_private_file, private_dir


def encoding(name: str, tokenizers: Path) -> Any:
    """The tiktoken `Encoding` called `name`, from litellm's `tokenizers` folder (cached per process)."""
    return _encoding(name, str(tokenizers))


@cache
def _encoding(name: str, tokenizers: str) -> Any:
    os.environ["TIKTOKEN_CACHE_DIR"] = tokenizers  # what `import litellm` sets too
    import tiktoken

    stamp = _stamp(tiktoken.__version__, Path(tokenizers))
    kept = _read(name, stamp)
    if kept is not None:
        pattern, ranks, special = kept
        return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special)
    fresh = tiktoken.get_encoding(name)
    data = (stamp, fresh._pat_str, fresh._mergeable_ranks, fresh._special_tokens)
    with contextlib.suppress(OSError, ValueError):  # a read-only or full cache only costs the next start
        _write(name, marshal.dumps(data))
    return fresh


def _stamp(version: str, tokenizers: Path) -> str:
    files = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in tokenizers.iterdir() if p.is_file())
    return f"{version}:{files}"


def _path(name: str) -> Path:
    return cache_dir() / "encodings" / f"{name}.marshal"


def _read(name: str, stamp: str) -> tuple[str, dict[bytes, int], dict[str, int]] | None:
    try:
        data = marshal.loads(_path(name).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 4 and data[0] == stamp):
        return None
    _, pattern, ranks, special = data
    if isinstance(pattern, str) and isinstance(ranks, dict) and isinstance(special, dict):
        return pattern, ranks, special
    return None


def _write(name: str, data: bytes) -> None:
    target = _path(name)
    folder = private_dir(target.parent)
    partial = create_private_file(folder, f"{name}.{os.getpid()}", ".partial", data)
    os.replace(partial, target)  # readers see the old file or the whole new one
