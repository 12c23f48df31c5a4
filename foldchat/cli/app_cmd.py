"""`foldchat` with no command: the interactive Textual app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from foldchat.tui.app import run_app

    return run_app(args)
