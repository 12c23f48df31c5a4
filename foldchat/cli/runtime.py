"""What the conversation commands share: settings, the database and the model registry."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a command runs, not when `foldchat` starts
    from foldchat.engine.config import Settings
    from foldchat.engine.models import ModelRegistry
    from foldchat.engine.store import Store


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="config file (default: $FOLDCHAT_CONFIG, else config.toml in the user config dir)",
    )


@dataclass
class Runtime:
    settings: Settings
    store: Store
    registry: ModelRegistry


@contextmanager
def open_runtime(args: argparse.Namespace) -> Iterator[Runtime]:
    from foldchat.engine.config import load_settings
    from foldchat.engine.models import ModelRegistry
    from foldchat.engine.paths import default_database
    from foldchat.engine.store import Store

    settings = load_settings(getattr(args, "config", None))
    store = Store(settings.database or default_database())
    registry = ModelRegistry(settings)
    try:
        yield Runtime(settings, store, registry)
    finally:
        registry.close()
        store.close()


def progress_printer(enabled: bool):  # type: ignore[no-untyped-def]
    """A progress callback for slow set-up steps, drawn on stderr when it is a terminal."""
    shown: set[str] = set()

    def report(step: str, done: int, total: int) -> None:
        if not enabled:
            return
        if total > 1:
            sys.stderr.write(f"\r{step}… {done * 100 // max(total, 1):3d}%")
            if done >= total:
                sys.stderr.write("\n")
        elif step not in shown:
            shown.add(step)
            sys.stderr.write(f"{step}…\n")
        sys.stderr.flush()

    return report
