"""`foldchat list`, `show` and `export`: reading stored conversations from the shell."""

from __future__ import annotations

import argparse
import shutil
import sys
import time

from foldchat.cli.ids import record_id
from foldchat.cli.listing import Row, lines
from foldchat.cli.runtime import add_config_option, open_archive
from foldchat.engine import visible


def add_list_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--search", metavar="TEXT",
        help="only conversations whose title or messages (their attached files too) hold TEXT's words (full-text, "
        "up to 1,000 characters), with the line that matched",
    )  # fmt: skip
    add_config_option(p)
    p.set_defaults(run=run_list)


def add_show_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", type=record_id, metavar="ID")
    add_config_option(p)
    p.set_defaults(run=run_show)


def add_export_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", type=record_id, metavar="ID")
    p.add_argument("--format", choices=["md", "json"], default="md", help="output format (default md)")
    p.add_argument(
        "--save", nargs="?", const="", metavar="DIR",
        help="write a new private file instead (never overwriting), in DIR or the exports folder of the "
        "data dir, and print its path",
    )  # fmt: skip
    add_config_option(p)
    p.set_defaults(run=run_export)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def run_list(args: argparse.Namespace) -> int:
    from foldchat.engine import total_line, usage_totals

    with open_archive(args) as archive:
        hits = archive.search(args.search) if args.search else []
        rows = [h.conversation for h in hits] if args.search else archive.conversations()
        excerpts = {h.conversation.id: h.excerpt for h in hits}
        if not rows and args.search:
            print(visible(f"no conversation matches {args.search!r}"), file=sys.stderr)
            return 0
        if not rows:
            print('no conversations yet: foldchat ask "hello" starts one', file=sys.stderr)
            return 0
        shown = [
            Row(c.id, _when(c.updated_at), c.message_count, visible(c.model or "-"), visible(c.title),
                visible(excerpts.get(c.id) or ""))
            for c in rows
        ]  # fmt: skip
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print("\n".join(lines(shown, width)))
        if not args.search and (spent := usage_totals(archive.store)).cost > 0:  # every conversation's replies
            print(f"total cost: {total_line(spent)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from foldchat.engine import fold_line, reply_line, reply_usages, status_suffix, total_line, usage_totals

    with open_archive(args) as archive:
        conversation = archive.conversation(args.id)
        print(
            visible(
                f"# {conversation.title or 'untitled'} (conversation {conversation.id}, {conversation.model or '-'})"
            )
        )
        if notice := archive.damaged_folds_notice(args.id):
            print(f"foldchat: {visible(notice)}", file=sys.stderr)
        folds = {f.last_message_id: f for f in archive.folds(args.id)}
        transcript = archive.transcript(args.id)
        numbers = archive.message_numbers(transcript)  # the conversation's own numbers, as the app shows
        recalls = archive.recalls(args.id)
        usages = reply_usages(archive.store, args.id)
        for stored in transcript:
            message = stored.message
            calls = "".join(f"\n  → {c.name}({c.arguments})" for c in message.tool_calls)
            print(visible(f"\n[{numbers[stored.id]}] {message.role}{status_suffix(stored, numbers)}: {message.text}{calls}"))
            if stored.id in recalls:
                print(visible(f"  ({recalls[stored.id].summary()} into its request)"))
            if stored.id in usages:  # what its provider said the request used, and what it cost
                print(f"  ({reply_line(usages[stored.id])})")
            fold = folds.get(stored.id)
            if fold is not None:  # its summarizer can quote a provider's error: shown, never run by the terminal
                print(visible(f"\n{fold_line(fold, archive.fold_coverage(fold, transcript), numbers)}"))
        if usages:
            print(f"\ncost: {total_line(usage_totals(archive.store, args.id))}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    with open_archive(args) as archive:
        if args.save is None:
            sys.stdout.write(archive.export(args.id, args.format))
            return 0
        directory = Path(args.save).expanduser() if args.save else None
        print(archive.write_export(args.id, args.format, directory))
    return 0
