"""`foldchat ask`: one question, a streamed answer, both stored; folds first when the policy says so."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from foldchat.cli.runtime import add_config_option, progress_printer
from foldchat.engine import ProviderError, UsageError

if TYPE_CHECKING:
    from foldchat.engine import Session

DESCRIPTION = """\
Send TEXT (or stdin with '-') to a model and stream the reply to stdout. Both messages are stored.
By default the most recent conversation continues; --new starts another. Before sending, the fold
policy runs: if the conversation is too big for the model's window it is folded first (a one-line
notice on stderr). With no API key configured, the embedded local model answers."""


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "ask", help="ask a question from the shell and stream the reply", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status: 0 ok; 1 provider or runtime error; 2 usage error.",
    )  # fmt: skip
    p.add_argument("text", metavar="TEXT|-", help="the message; '-' reads it from stdin")
    p.add_argument("--model", "-m", help="model name, config alias or 'local' (default: the conversation's model)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--conversation", "-c", type=int, metavar="ID", help="continue conversation ID")
    target.add_argument("--new", "-n", action="store_true", help="start a new conversation")
    p.add_argument("--system", metavar="TEXT", help="system prompt for the conversation")
    add_config_option(p)
    p.set_defaults(run=run)


def read_prompt(text: str) -> str:
    prompt = sys.stdin.read() if text == "-" else text
    if not prompt.strip():
        raise UsageError("the message is empty")
    return prompt.strip("\n")


def run(args: argparse.Namespace) -> int:
    from foldchat.engine import OpenOptions, Session

    prompt = read_prompt(args.text)
    options = OpenOptions(config=args.config, conversation=args.conversation, new=args.new, model=args.model)
    with Session.open(options) as session:
        session.connect(remember=True)  # an unknown model fails here, before anything is stored
        if args.system:
            session.set_system_prompt(args.system)
        session.add_user_message(prompt)  # committed before anything can fail
        session.prepare_model(progress_printer(sys.stderr.isatty()))
        report = session.fold_if_needed()
        if report is not None and report.compressed:
            print(
                f"foldchat: folded {report.folded_messages} messages · {report.tokens_before:,} → "
                f"{report.tokens_after:,} tokens · {report.summarizer}",
                file=sys.stderr,
            )
        return asyncio.run(stream(session))


async def stream(session: Session) -> int:
    from foldchat.engine import Failed, Retrying, TextDelta

    wrote = False
    failure: str | None = None
    async for event in session.reply():
        if isinstance(event, TextDelta):
            text = event.text.lstrip() if not wrote else event.text
            sys.stdout.write(text)
            sys.stdout.flush()
            wrote = wrote or bool(text)
        elif isinstance(event, Retrying):
            print(f"foldchat: {event.reason}; retry {event.attempt} in {event.delay:.1f} s", file=sys.stderr)
        elif isinstance(event, Failed):
            failure = event.error
    if wrote:
        sys.stdout.write("\n")
    if failure is not None:
        raise ProviderError(failure)
    return 0
