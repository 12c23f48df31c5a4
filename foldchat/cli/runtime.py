"""What the conversation commands share: the workspace (settings, database, models) or just the archive of
stored conversations, and progress lines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a command runs, not when `foldchat` starts
    from foldchat.engine import Archive, Workspace


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="config file (default: $FOLDCHAT_CONFIG, else config.toml in the user config dir)",
    )


@contextmanager
def open_workspace(args: argparse.Namespace) -> Iterator[Workspace]:
    """The config (from --config or the usual lookup), the database and the models, closed after."""
    from foldchat.engine import OpenOptions, Workspace

    with Workspace.open(OpenOptions(config=getattr(args, "config", None))) as workspace:
        yield workspace


@contextmanager
def open_archive(args: argparse.Namespace) -> Iterator[Archive]:
    """The stored conversations (the database --config or the usual lookup names), closed after: no
    settings beyond the database unless the config sets more, no models."""
    from foldchat.engine import Archive, OpenOptions

    with Archive.open(OpenOptions(config=getattr(args, "config", None))) as archive:
        yield archive


def progress_printer(enabled: bool) -> Callable[[str, int, int], None]:
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
