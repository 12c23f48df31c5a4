"""`foldchat ask`: one question, a streamed answer, both stored; folds first when the policy says so."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from foldchat.cli.ids import record_id
from foldchat.cli.inputs import check_text_argument, read_bytes, read_text
from foldchat.cli.runtime import add_config_option, progress_printer
from foldchat.engine import InputTooLarge, ProviderError, UsageError, visible

if TYPE_CHECKING:
    from foldchat.engine import Attachment, FoldReport, FoldSkipped, Refused, ReplyEvent, Session, TurnEvent

DESCRIPTION = """\
Send TEXT (or stdin with '-') to a model and stream the reply to stdout. Both messages are stored.
By default the most recent conversation continues; --new starts another. Before sending, the fold
policy runs: if the conversation is too big for the model's window it is folded first (a one-line
notice on stderr). Nobody can answer "fold now?" here, so with fold.auto = "ask" ask folds and says
so; --no-fold sends the conversation unfolded this time (if it fits), --fold folds even when fold.auto
is "off". With no API key configured, the embedded local model answers.

Attach files with -f FILE (repeatable) and command output with -f - (stdin):
  pytest 2>&1 | foldchat ask -f - "why does this fail?"
An attachment is text (UTF-8) up to max_attachment_bytes; a fold keeps recent ones whole and turns older
ones into a one-line stub that the model can recall by name.

After a fold, the words of folded messages that the question is about are recalled into the request,
word for word (one line on stderr says which: "recalled #12, #48 · 312 tokens"); [fold] auto_recall
switches it off."""


def add_parser(p: argparse.ArgumentParser) -> None:
    """`ask`'s arguments (its help line is in commands.py)."""
    p.description, p.epilog = DESCRIPTION, "exit status: 0 ok; 1 provider or runtime error; 2 usage error."
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("text", metavar="TEXT|-", help="the message; '-' reads it from stdin")
    p.add_argument("--file", "-f", action="append", default=[], metavar="FILE",
                   help="attach FILE (text); '-' attaches stdin, e.g. a command's output; repeatable")  # fmt: skip
    p.add_argument("--model", "-m", help="model name, config alias or 'local' (default: the conversation's model)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--conversation", "-c", type=record_id, metavar="ID", help="continue conversation ID")
    target.add_argument("--new", "-n", action="store_true", help="start a new conversation")
    p.add_argument("--system", metavar="TEXT", help="system prompt for the conversation")
    folding = p.add_mutually_exclusive_group()
    folding.add_argument("--fold", action="store_true", default=None,
                         help="fold first when the conversation needs it, whatever fold.auto says")  # fmt: skip
    folding.add_argument("--no-fold", dest="fold", action="store_false",
                         help="do not fold this time: send unfolded if it fits, else keep it unsent")  # fmt: skip
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
    attachments = read_attachments(args.file, args.text, settings.max_attachment_bytes)
    if len(prompt.encode()) + sum(a.size for a in attachments) > settings.max_input_bytes:
        raise InputTooLarge(
            f"the message with its attachments is larger than the {settings.max_input_bytes:,}-byte limit "
            "(max_input_bytes in config.toml)"
        )
    system = check_text_argument(args.system, "--system") if args.system else None
    options = OpenOptions(
        config=args.config, settings=settings, conversation=args.conversation, new=args.new, model=args.model
    )
    with Workspace.open(options) as workspace:  # closing it stops the local model's server on every path
        workspace.start_model_early(options)  # the local model loads while the session machinery imports
        from foldchat.engine import Session

        with Session.open(options, workspace) as session:
            return ask(session, prompt, system, attachments, args.fold)


def read_attachments(paths: list[str], text: str, limit: int) -> list[Attachment]:
    """Each `-f` file (or stdin for '-') as an attachment, checked before anything is stored."""
    from foldchat.engine import read_attachment

    if paths.count("-") + (text == "-") > 1:
        raise UsageError("stdin can be read once: use '-' for the message or for one -f, not both")
    return [read_attachment("stdin" if path == "-" else Path(path).name, read_bytes(path, limit, SETTING), limit)
            for path in paths]  # fmt: skip


SETTING = "max_attachment_bytes"


def ask(
    session: Session,
    prompt: str,
    system: str | None,
    attachments: list[Attachment] | None = None,
    fold: bool | None = None,
) -> int:
    """Connect to the model, then run one turn (the engine stores, folds if needed, streams)."""
    from foldchat.engine import UnknownModel, changed_since, takes_images

    try:
        session.connect(remember=True)  # an unknown model fails here, before any message is stored
    except UnknownModel:
        session.discard_if_empty()  # a typo must not leave an empty conversation behind
        raise UnknownModel(
            f"unknown model {session.model_name!r}: litellm has no context window for it; add it to "
            "config.toml as an alias with context_window (see [models.*] in config.example.toml)"
        ) from None
    if notice := session.workspace.damaged_folds_notice(session.conversation_id):
        say(visible(notice))
    images = [a.name for a in attachments or [] if a.is_image]
    if images and not takes_images(session.target):
        raise UsageError(
            f"{session.target.name} takes no images: {', '.join(images)} not sent, nothing stored (leave it out, "
            "or pick a model that takes images with --model)"
        )
    transcript = [m.message for m in session.context.transcript()]
    for attachment in attachments or []:
        if (number := changed_since(transcript, attachment)) is not None:
            say(f"{attachment.name} changed since it was attached in message #{number}: sending this version")
    if system:
        session.set_system_prompt(system)
    session.prepare_model(progress_printer(sys.stderr.isatty()))
    import asyncio  # only `ask` streams: list, show and export start faster without it

    return asyncio.run(Answer(session, fold).run(prompt, attachments or []))


class Answer:
    """`foldchat ask`'s face of a turn: the reply on stdout, everything else one line on stderr. Nobody can
    answer "fold now?" here, so it is decided before the turn: `fold` (--fold, --no-fold) if given, else
    `fold.auto = "ask"` folds (and says so), "on" folds, "off" sends what fits unfolded."""

    def __init__(self, session: Session, fold: bool | None = None) -> None:
        self.session = session
        mode = session.auto.mode
        self.why = "--fold" if fold else "--no-fold" if fold is False else f"fold.auto is {mode}"
        """What decided whether to fold, said in the fold's notice."""
        if fold or (fold is None and mode == "ask"):
            session.auto.set_mode("on")
        elif fold is False:  # a fold due waits for a consent that never comes: said, then sent unfolded if it fits
            session.auto.set_mode("ask")
        self.shown: list[str] = []
        self.failure: str | None = None
        self.cut: int | None = None
        self.stored = False
        """The question is in the database: a write that fails before it means nothing was sent."""

    async def run(self, prompt: str, attachments: list[Attachment] | None = None) -> int:
        from foldchat.engine import DiskFull, StorageError

        try:
            async for event in self.session.turn(prompt, attachments=attachments or []):
                self.show(event)
        except StorageError as error:  # the disk filled up (or failed) mid-reply: keep what the user saw
            if self.shown:
                sys.stdout.write("\n")
            problem = "the disk is full" if isinstance(error, DiskFull) else f"the database failed ({error})"
            if not self.stored:
                raise type(error)(f"{problem}: your question was not saved and nothing was sent; free some space "
                                  "and ask again") from None  # fmt: skip
            raise type(error)(_unsaved_reply("".join(self.shown), self.session.conversation_id, problem)) from None
        if self.shown:
            sys.stdout.write("\n")
        if self.failure is not None:
            raise ProviderError(self.failure)
        if self.cut is not None:  # the output cap ended the reply, perhaps mid-word: say so, and how to get the rest
            print(f'foldchat: [cut at {self.cut} tokens] foldchat ask "continue" asks for the rest', file=sys.stderr)
        return 0

    def show(self, event: TurnEvent) -> None:
        """One event of the turn, said: the turn's own here, the reply's in `show_reply`. Every kind of
        `TurnEvent` has its case: one the engine adds is a type error here until it is said or passed over."""
        from foldchat.engine import (
            FoldCompleted,
            Folded,
            FoldFailedEvent,
            FoldProgress,
            FoldSkipped,
            FoldStarted,
            PromptStored,
            Refused,
            ReplyAsked,
            TurnEnded,
        )

        match event:
            case PromptStored():
                self.stored = True
            case Refused():
                self.refused(event)
            case Folded():
                self.folded(event.report)
            case FoldSkipped():
                self.not_folded(event)
            case FoldStarted() | FoldProgress() | FoldCompleted() | FoldFailedEvent() | ReplyAsked() | TurnEnded():
                pass  # the fold is said once it is made (`Folded`); the reply is stdout, the end is the exit
            case _:
                self.show_reply(event)

    def show_reply(self, event: ReplyEvent) -> None:
        """The reply on stdout; a recall, a notice, a wait, a retry on stderr; a failure or a cut at the end."""
        from foldchat.engine import (
            Failed,
            Finished,
            Notice,
            PassagesRecalled,
            ReasoningDelta,
            Retrying,
            TextDelta,
            ToolCallDelta,
            ToolCalling,
            ToolCallsAnswered,
            UsageReport,
            Waiting,
        )

        match event:
            case TextDelta():
                text = event.text.lstrip() if not self.shown else event.text
                sys.stdout.write(visible(text))
                sys.stdout.flush()
                if text:
                    self.shown.append(text)
            case PassagesRecalled():
                say(f"{event.recalled.summary()} (folded messages the question is about; foldchat show lists them)")
            case Notice():
                say(visible(event.text))
            case Waiting():
                say(f"{event.reason}{'' if event.left is None else f', ~{event.left:.0f} s left'} …")
            case Retrying():
                say(f"{visible(event.reason)}; retry {event.attempt} in {event.delay:.1f} s")
            case Failed():
                self.failure = event.error
            case Finished():
                if event.finish_reason == "length":
                    target = self.session.target
                    self.cut = event.usage.completion_tokens if event.usage else target.max_output_tokens or 0
            case ReasoningDelta() | ToolCallDelta() | UsageReport() | ToolCalling() | ToolCallsAnswered():
                pass  # stdout is the answer alone: no reasoning, and a recall round is the engine's own
            case _:
                assert_never(event)

    def not_folded(self, event: FoldSkipped) -> None:
        """A fold the policy asked for and the run chose not to make (--no-fold, fold.auto off), or one that
        failed: the reply goes unfolded."""
        report = event.report
        if event.failed:
            say(f"could not fold: {event.reason}")
        elif report is None:
            say(f"not folded ({self.why}): {event.reason}")
        else:
            say(
                f"not folded ({self.why}): the context is {report.tokens_before:,} tokens, past the fold trigger "
                f"({report.trigger_tokens:,}); --fold folds it"
            )

    def refused(self, event: Refused) -> None:
        from foldchat.engine import CurrentTurnTooLarge

        if event.up_front:  # as the app refuses it: before it is stored, with the arithmetic
            raise CurrentTurnTooLarge(f"Not sent: {event.reason}. Nothing was stored: shorten it and ask again")
        if event.needs_fold:
            raise CurrentTurnTooLarge(
                f"{event.reason}: not sent (it is kept as unsent). Ask again with --fold to fold first, or "
                "/resummarize in the app"
            )
        raise CurrentTurnTooLarge(
            f"{event.reason}. The message was not sent; it is kept as unsent in conversation "
            f"{self.session.conversation_id} and later messages are not affected"
        )

    def folded(self, report: FoldReport) -> None:
        unasked = (
            " (fold.auto is ask and nobody can answer here: --no-fold skips it)" if self.why.endswith("ask") else ""
        )
        say(
            f"folded {report.folded_messages} messages · {report.tokens_before:,} → {report.tokens_after:,} tokens"
            f" · {report.summarizer}{unasked}"
        )
        if report.rules_notice():
            say(visible(report.rules_notice() or ""))


def say(line: str) -> None:
    """One line on stderr, as every notice of `ask` is."""
    print(f"foldchat: {line}", file=sys.stderr)


def _unsaved_reply(text: str, conversation_id: int | None, problem: str) -> str:
    """Where the reply the user saw went, since the database could not take it."""
    from foldchat.engine import save_unsaved_text

    if not text:
        return f"{problem}: the reply could not be saved; free some space and ask again"
    path = save_unsaved_text(text, f"reply-{conversation_id}")
    if path is None:
        return f"{problem}: the reply shown above could not be saved anywhere; copy it from the terminal"
    return f"{problem}: the reply shown above was not saved in the database; its text is in {path}"
