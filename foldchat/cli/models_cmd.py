"""`foldchat models`: the models Foldchat knows by name, with window and price."""

from __future__ import annotations

import argparse
from typing import Any

from foldchat.cli.runtime import add_config_option
from foldchat.engine import visible
from foldchat.engine.errors import UsageError


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "models", help="list model aliases with window and price",
        description="The local model, your config aliases and the default. Any litellm model string works too.",
    )  # fmt: skip
    add_config_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from foldchat.engine.config import load_settings
    from foldchat.engine.models import ModelRegistry

    registry = ModelRegistry(load_settings(args.config))
    default = registry.default_name()
    names = registry.names() + ([default] if default not in registry.names() else [])
    print(f"{'name':<24} {'model':<36} {'window':>9} {'$/1M in':>9} {'$/1M out':>9}")
    for name in names:
        try:
            t = registry.resolve(name)
        except UsageError as error:
            print(visible(f"{name:<24} {str(error)[:60]}"))
            continue
        mark = " (default)" if name == default else ""
        print(
            visible(
                f"{name:<24} {t.litellm_model:<36} {t.window:>9,} {t.input_cost_per_token * 1e6:>9.2f} "
                f"{t.output_cost_per_token * 1e6:>9.2f}{mark}"
            )
        )
    return 0
