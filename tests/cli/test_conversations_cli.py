"""`foldchat show`: the conversation's own message numbers and the fold count the app shows."""

from __future__ import annotations

import re

from foldchat.engine import Message, OpenOptions, Session

from cli.test_import_cli import environment, run
from tui.conftest import settings_for


def test_show_numbers_messages_and_folds_by_the_conversation(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    options = OpenOptions(settings=settings_for(fake, 6000), database=tmp_path / "db.sqlite", new=True)
    with Session.open(options) as session:
        session.store.append(session.store.create_conversation(title="earlier"), Message.user("an earlier chat"))
    with Session.open(options) as session:  # a second conversation: its ids no longer start at 1
        session.connect()
        for n in range(4):
            session.add_user_message(f"question {n} about BILL-{n}: " + "invoice lines and totals " * 80)
            session.store.append(session.conversation_id, Message.assistant(f"answer {n}"))
        report = session.fold_now()
        assert report is not None and report.compressed, report and report.reason
        fold = session.context.active_fold()
        numbers = session.context.message_numbers()
        conversation, count = session.conversation_id, session.chain.coverage(fold)
    assert fold.first_message_id != numbers[fold.first_message_id]

    shown = run("show", str(conversation), env=environment(tmp_path)).stdout
    assert re.findall(r"^\[(\d+)\] ", shown, re.MULTILINE) == [str(n) for n in range(1, 9)]
    first, last = numbers[fold.first_message_id], numbers[fold.last_message_id]
    assert f"── folded {count} messages ({first}..{last}) · {fold.tokens_before:,} → {fold.tokens_after:,}" in shown


def test_show_says_which_message_replaced_a_reply_by_its_number(tmp_path):
    from foldchat.engine import Archive

    with Archive.open(OpenOptions(database=tmp_path / "db.sqlite")) as archive:
        store = archive.store
        store.append(store.create_conversation(), Message.user("an earlier chat"))  # ids no longer start at 1
        cid = store.create_conversation()
        store.append(cid, Message.user("question"))
        old = store.append(cid, Message.assistant("first answer"))
        new = store.append(cid, Message.assistant("better answer"))
        store.supersede([old], new)
    shown = run("show", str(cid), env=environment(tmp_path)).stdout
    assert "[2] assistant [superseded by #3]: first answer" in shown  # not the database id {new}
