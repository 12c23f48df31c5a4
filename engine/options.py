"""How Foldchat is opened: config, database and which conversation (the CLI's flags).

Its own small module because the app's first screen needs it before anything heavy (pydantic,
SQLite, litellm) is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .config import Settings


class OpenOptions(NamedTuple):
    """Where to open Foldchat and which conversation (CLI flags), plus injection points for tests. (A named
    tuple: cheaper to define than a dataclass, and every CLI command builds one.)"""

    config: str | Path | None = None
    conversation: int | None = None
    new: bool = False
    model: str | None = None
    settings: Settings | None = None
    database: Path | None = None
