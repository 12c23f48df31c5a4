"""`foldchat` entry point: argument parsing and error reporting, nothing else.

Each subcommand is listed in commands.py and lives in its own module, which declares its arguments (with a
`run(args) -> int` default) and is imported only when that command is given.
Errors leave as one line on stderr: `FoldchatError` with its own exit code (1 runtime, 2 usage),
anything else as an internal error with exit 1, its traceback in the crash log (or raised with FOLDCHAT_DEBUG=1).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from foldchat import __version__
from foldchat.cli.commands import BY_NAME, COMMANDS
from foldchat.cli.ids import record_id
from foldchat.engine import FoldchatError, visible


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # one line, like every other Foldchat error; the usage is one --help away
        self.exit(2, f"foldchat: {message} (see '{self.prog} --help')\n")


if TYPE_CHECKING:  # generic for type checkers only: the class itself is not subscriptable
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubParsers = argparse._SubParsersAction


class _NotBuilt:
    """A subcommand's parser until its command is given: what argparse would build it with. Building the seven
    cost ~8 ms of every start (each parser looks its words up in gettext's catalogues, on disk, every time)."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class _Commands(_SubParsers):
    """The subcommands' parsers: listed (name and help) up front, each built and declared in full, from its
    module, only once its command is the one given, so a command's start-up pays for no other command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.declared: set[str] = set()

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = values[0] if isinstance(values, list) and values else None  # argparse checked it is a choice
        if name in BY_NAME and name not in self.declared:
            command = BY_NAME[name]
            not_built: _NotBuilt = cast(Any, self.choices[name])  # argparse made it `parser_class(**kwargs)`
            parser = _Parser(**not_built.kwargs)
            self.choices[name] = parser
            getattr(import_module(f"foldchat.cli.{command.module}"), command.declare)(parser)
            self.declared.add(name)
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="foldchat",
        description=(
            "A terminal chat for LLMs that folds long conversations into a state snapshot instead of "
            "forgetting them. Run without a command to open the chat app."
        ),
    )
    parser.add_argument("--version", action="version", version=f"foldchat {__version__}")
    app = parser.add_argument_group("chat app options (no command)")
    app.add_argument("--model", "-m", help="model for this session: alias, litellm model string or 'local'")
    app.add_argument("--conversation", "-c", type=record_id, metavar="ID", help="open conversation ID")
    app.add_argument("--new", "-n", action="store_true", help="start a new conversation (default: the latest)")
    app.add_argument("--config", metavar="PATH", help="config file (default: $FOLDCHAT_CONFIG or the user config dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=cast(Any, _NotBuilt), action=_Commands)
    for command in COMMANDS:
        commands.add_parser(command.name, help=command.help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            from foldchat.cli import app_cmd

            return app_cmd.run(args)
        return int(args.run(args))
    except FoldchatError as error:
        print(f"foldchat: {visible(str(error))}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("foldchat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # a bug: one line for the user, the traceback in the crash log
        if os.environ.get("FOLDCHAT_DEBUG"):
            raise
        from foldchat.engine import crash_line, write_crash_log

        try:
            print(crash_line(error, write_crash_log(error)), file=sys.stderr)
        except OSError:
            print(f"foldchat: internal error: {type(error).__name__}: {visible(str(error))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
