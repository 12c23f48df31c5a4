"""`foldchat list`, `show` and `export`: reading stored conversations from the shell."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from foldchat.cli.runtime import add_config_option, open_runtime
from foldchat.engine.chat import snapshot_text
from foldchat.engine.store import Store, StoredMessage


def add_parser(commands: Any) -> None:
    p = commands.add_parser("list", help="list conversations, most recent first")
    p.add_argument("--search", metavar="TEXT", help="only conversations whose title or messages contain TEXT")
    add_config_option(p)
    p.set_defaults(run=run_list)

    p = commands.add_parser("show", help="print a conversation's whole transcript, folds marked")
    p.add_argument("id", type=int, metavar="ID")
    add_config_option(p)
    p.set_defaults(run=run_show)

    p = commands.add_parser("export", help="write a conversation as Markdown or JSON to stdout")
    p.add_argument("id", type=int, metavar="ID")
    p.add_argument("--format", choices=["md", "json"], default="md", help="output format (default md)")
    add_config_option(p)
    p.set_defaults(run=run_export)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def run_list(args: argparse.Namespace) -> int:
    with open_runtime(args) as rt:
        rows = rt.store.conversations(search=args.search)
        if not rows:
            print('no conversations yet: foldchat ask "hello" starts one', file=sys.stderr)
            return 0
        for c in rows:
            print(f"{c.id:>5}  {_when(c.updated_at)}  {c.message_count:>5} msgs  {c.model or '-':<24}  {c.title}")
    return 0


def _status(stored: StoredMessage) -> str:
    return "" if stored.status == "complete" else f" [{stored.status}{': ' + stored.error if stored.error else ''}]"


def run_show(args: argparse.Namespace) -> int:
    with open_runtime(args) as rt:
        conversation = rt.store.conversation(args.id)
        print(f"# {conversation.title or 'untitled'} (conversation {conversation.id}, {conversation.model or '-'})")
        folds = {f.last_message_id: f for f in rt.store.folds(args.id)}
        for stored in rt.store.messages(args.id):
            message = stored.message
            calls = "".join(f"\n  → {c.name}({c.arguments})" for c in message.tool_calls)
            print(f"\n[{stored.id}] {message.role}{_status(stored)}: {message.text}{calls}")
            fold = folds.get(stored.id)
            if fold is not None:
                print(
                    f"\n── folded messages {fold.first_message_id}..{fold.last_message_id} · "
                    f"{fold.tokens_before:,} → {fold.tokens_after:,} tokens · {fold.summarizer} ──"
                )
    return 0


def run_export(args: argparse.Namespace) -> int:
    with open_runtime(args) as rt:
        sys.stdout.write(export(rt.store, args.id, args.format))
    return 0


def export(store: Store, conversation_id: int, fmt: str) -> str:
    conversation = store.conversation(conversation_id)
    messages = store.messages(conversation_id)
    folds = store.folds(conversation_id)
    if fmt == "json":
        data = {
            "id": conversation.id,
            "title": conversation.title,
            "model": conversation.model,
            "messages": [
                {"id": m.id, "status": m.status, "model": m.model, "message": m.message.to_dict()} for m in messages
            ],
            "folds": [
                {"id": f.id, "covers": [f.first_message_id, f.last_message_id], "snapshot": snapshot_text(f),
                 "summarizer": f.summarizer, "trigger": f.trigger, "tokens_before": f.tokens_before,
                 "tokens_after": f.tokens_after}
                for f in folds
            ],
        }  # fmt: skip
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    lines = [f"# {conversation.title or 'untitled'}", ""]
    for stored in messages:
        message = stored.message
        lines.append(f"## {message.role}{_status(stored)}")
        lines.append("")
        lines.append(message.text)
        for call in message.tool_calls:
            lines.append(f"\n`{call.name}({call.arguments})`")
        lines.append("")
    return "\n".join(lines)
