"""`foldchat import`: a conversation from a JSON message list or a ChatGPT export."""

from __future__ import annotations

import argparse

from foldchat.cli.runtime import add_config_option, open_workspace


def add_parser(p: argparse.ArgumentParser) -> None:
    """`import`'s arguments (its help line is in commands.py)."""
    p.description = (
        "Create a conversation from FILE (or stdin with '-'): a JSON array of OpenAI chat messages "
        "(tool calls, images and reasoning fields kept as they are) or a ChatGPT data export "
        "(conversations.json, one conversation per entry). Messages are stored exactly as given."
    )
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("--model", "-m", help="model the conversation continues with (default: the default model)")
    add_config_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from foldchat.cli.compress_cmd import read_json
    from foldchat.engine import load_settings

    # the whole file is read and checked before the database is touched
    data = read_json(args.file, load_settings(args.config).max_import_bytes, "max_import_bytes")
    with open_workspace(args) as workspace:
        # stored with the conversation, so `list` says what it continues with (it showed "-")
        for cid in workspace.import_data(data, args.model or workspace.default_model_name()):
            print(cid)
    return 0
