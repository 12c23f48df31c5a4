"""`foldchat ask`: one question, a streamed answer, both stored; folds first when the policy says so."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from foldchat.cli.inputs import check_text_argument, read_text, record_id
from foldchat.cli.runtime import add_config_option, progress_printer
from foldchat.engine import InputTooLarge, ProviderError, UsageError, visible

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
    target.add_argument("--conversation", "-c", type=record_id, metavar="ID", help="continue conversation ID")
    target.add_argument("--new", "-n", action="store_true", help="start a new conversation")
    p.add_argument("--system", metavar="TEXT", help="system prompt for the conversation")
    add_config_option(p)
    p.set_defaults(run=run)


def read_prompt(text: str, limit: int) -> str:
    """The message, checked before anything is stored: bad input creates nothing."""
    prompt = read_text("-", limit) if text == "-" else check_text_argument(text, "the message")
    if len(prompt.encode("utf-8")) > limit:
        raise InputTooLarge(f"the message is larger than the {limit:,}-byte limit (max_input_bytes in config.toml)")
    if not prompt.strip():
        raise UsageError("the message is empty")
    return prompt.strip("\n")


def run(args: argparse.Namespace) -> int:
    from foldchat.engine import OpenOptions, Workspace, load_settings

    settings = load_settings(args.config)
    prompt = read_prompt(args.text, settings.max_input_bytes)  # bad input creates nothing
    system = check_text_argument(args.system, "--system") if args.system else None
    options = OpenOptions(
        config=args.config, settings=settings, conversation=args.conversation, new=args.new, model=args.model
    )
    with Workspace.open(options) as workspace:  # closing it stops the local model's server on every path
        workspace.start_model_early(options)  # the local model loads while the session machinery imports
        from foldchat.engine import Session

        with Session.open(options, workspace) as session:
            return ask(session, prompt, system)


def ask(session: Session, prompt: str, system: str | None) -> int:
    """Store the message, fold if the policy says so, and stream the reply."""
    from foldchat.engine import CurrentTurnTooLarge, UnknownModel

    try:
        session.connect(remember=True)  # an unknown model fails here, before any message is stored
    except UnknownModel:
        session.discard_if_empty()  # a typo must not leave an empty conversation behind
        raise UnknownModel(
            f"unknown model {session.model_name!r}: litellm has no context window for it; add it to "
            "config.toml as an alias with context_window (see [models.*] in config.example.toml)"
        ) from None
    if system:
        session.set_system_prompt(system)
    message_id = session.add_user_message(prompt)  # committed before anything can fail
    session.prepare_model(progress_printer(sys.stderr.isatty()))
    try:
        report = session.fold_if_needed()
    except CurrentTurnTooLarge as error:
        # kept, marked, and left out of every later context: the next ask starts clean
        session.mark_unsent(message_id, f"not sent: too big for {session.target.name}")
        raise CurrentTurnTooLarge(
            f"{error}. The message was not sent; it is kept as unsent in conversation "
            f"{session.conversation_id} and later messages are not affected"
        ) from None
    if report is not None and report.awaiting_consent:
        # nobody can answer here: say so; send unfolded only what fits (fold.auto = "on" folds)
        usage = session.usage()
        if usage.used > usage.window:
            session.mark_unsent(message_id, f"not sent: over {session.target.name}'s window")
            raise CurrentTurnTooLarge(
                f"the conversation needs {usage.tokens:,} tokens and {usage.reserved:,} for the reply, over "
                f"{session.target.name}'s {usage.window:,}-token window, and fold.auto is {session.fold_auto}: "
                f"not sent (it is kept as unsent). Fold it with FOLDCHAT_FOLD__AUTO=on, or /resummarize in the app"
            )
        print(f"foldchat: {report.reason} (not folded: fold.auto is {session.fold_auto})", file=sys.stderr)
    if report is not None and report.compressed:
        print(
            f"foldchat: folded {report.folded_messages} messages · {report.tokens_before:,} → "
            f"{report.tokens_after:,} tokens · {report.summarizer}",
            file=sys.stderr,
        )
        if report.rules_notice():
            print(f"foldchat: {visible(report.rules_notice() or '')}", file=sys.stderr)
    import asyncio  # only `ask` streams: list, show and export start faster without it

    return asyncio.run(stream(session))


async def stream(session: Session) -> int:
    from foldchat.engine import DiskFull, Failed, Finished, Notice, Retrying, StorageError, TextDelta, Waiting

    shown: list[str] = []
    failure: str | None = None
    cut: int | None = None
    try:
        async for event in session.reply():
            if isinstance(event, TextDelta):
                text = event.text.lstrip() if not shown else event.text
                sys.stdout.write(visible(text))
                sys.stdout.flush()
                if text:
                    shown.append(text)
            elif isinstance(event, Notice):
                print(f"foldchat: {visible(event.text)}", file=sys.stderr)
            elif isinstance(event, Waiting):
                print(f"foldchat: {event.reason} …", file=sys.stderr)
            elif isinstance(event, Retrying):
                print(
                    f"foldchat: {visible(event.reason)}; retry {event.attempt} in {event.delay:.1f} s", file=sys.stderr
                )
            elif isinstance(event, Failed):
                failure = event.error
            elif isinstance(event, Finished) and event.finish_reason == "length":
                cut = event.usage.completion_tokens if event.usage else session.target.max_output_tokens or 0
    except StorageError as error:  # the disk filled up (or failed) mid-reply: keep what the user saw
        if shown:
            sys.stdout.write("\n")
        problem = "the disk is full" if isinstance(error, DiskFull) else f"the database failed ({error})"
        raise type(error)(_unsaved_reply("".join(shown), session.conversation_id, problem)) from None
    if shown:
        sys.stdout.write("\n")
    if failure is not None:
        raise ProviderError(failure)
    if cut is not None:  # the output cap ended the reply, perhaps mid-word: say so, and how to get the rest
        print(f'foldchat: [cut at {cut} tokens] foldchat ask "continue" asks for the rest', file=sys.stderr)
    return 0


def _unsaved_reply(text: str, conversation_id: int, problem: str) -> str:
    """Where the reply the user saw went, since the database could not take it."""
    from foldchat.engine import save_unsaved_text

    if not text:
        return f"{problem}: the reply could not be saved; free some space and ask again"
    path = save_unsaved_text(text, f"reply-{conversation_id}")
    if path is None:
        return f"{problem}: the reply shown above could not be saved anywhere; copy it from the terminal"
    return f"{problem}: the reply shown above was not saved in the database; its text is in {path}"
