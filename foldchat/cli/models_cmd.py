"""`foldchat models`: the models Foldchat knows by name, with window and price."""

from __future__ import annotations

import argparse

from foldchat.cli.runtime import add_config_option
from foldchat.engine import visible


def add_parser(p: argparse.ArgumentParser) -> None:
    """`models`' arguments (its help line is in commands.py)."""
    p.description = "The local model, your config aliases and the default. Any litellm model string works too."
    add_config_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from foldchat.engine import OpenOptions, Workspace

    with Workspace.open(OpenOptions(config=args.config)) as workspace:
        print(f"{'name':<24} {'model':<36} {'window':>9} {'$/1M in':>9} {'$/1M out':>9}")
        for entry in workspace.known_models():
            t = entry.target
            if t is None:
                print(visible(f"{entry.name:<24} {entry.problem[:60]}"))
                continue
            mark = " (default)" if entry.is_default else ""
            print(
                visible(
                    f"{entry.name:<24} {t.litellm_model:<36} {t.window:>9,} {t.input_cost_per_token * 1e6:>9.2f} "
                    f"{t.output_cost_per_token * 1e6:>9.2f}{mark}"
                )
            )
    return 0
