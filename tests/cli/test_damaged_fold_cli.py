"""A fold record whose snapshot is not valid JSON (a damaged or hand-edited database): `show` and `ask` open
the conversation, treat that fold as undone and say so in one line, once per run."""

from __future__ import annotations

import sqlite3

from foldchat.engine import Message, OpenOptions, Session

from cli.in_process import foldchat_main as foldchat


def folded_conversation(home) -> tuple[int, int]:
    """A conversation of the `home` fixture with one fold made by the rules summarizer: (conversation, fold)."""
    with Session.open(OpenOptions(new=True, model="fake")) as session:
        session.connect()
        for n in range(4):
            session.add_user_message(f"question {n} about BILL-{n}: " + "invoice lines and totals " * 80)
            session.store.append(session.conversation_id, Message.assistant(f"answer {n}"))
        report = session.fold_now()
        assert report is not None and report.compressed, report and report.reason
        fold = session.context.active_fold()
        return session.conversation_id, fold.id


def damage(home, fold_id: int, snapshot: str) -> None:
    with sqlite3.connect(home / "foldchat.db") as db:
        db.execute("UPDATE folds SET snapshot = ? WHERE id = ?", (snapshot, fold_id))


def test_a_fold_whose_snapshot_is_not_json_is_treated_as_undone_and_said_once(home, fake, monkeypatch):
    monkeypatch.setenv("FOLDCHAT_SUMMARIZER", "rules")
    conversation, fold = folded_conversation(home)
    assert "── folded" in foldchat("show", str(conversation)).stdout
    damage(home, fold, '{"goal": "cut off here')

    shown = foldchat("show", str(conversation))
    assert shown.returncode == 0, shown.stderr
    assert "internal error" not in shown.stderr and shown.stderr.count("\n") == 1, shown.stderr
    assert f"fold {fold}" in shown.stderr and "treated as undone" in shown.stderr
    assert "── folded" not in shown.stdout and "question 3 about BILL-3" in shown.stdout

    asked = foldchat("ask", "and the totals?", "-c", str(conversation), "--model", "fake")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.strip() == fake.reply
    assert asked.stderr.count("\n") == 1 and f"fold {fold}" in asked.stderr, asked.stderr
    sent = fake.requests[-1]["messages"]
    assert "<state_snapshot>" not in str(sent) and "question 0 about BILL-0" in sent[0]["content"]


def test_a_snapshot_that_is_json_but_not_an_object_or_over_python_limits_is_damaged_too(home, fake, monkeypatch):
    monkeypatch.setenv("FOLDCHAT_SUMMARIZER", "rules")
    conversation, fold = folded_conversation(home)
    for snapshot in ("[1, 2]", "9" * 5000, "[" * 5000 + "]" * 5000):
        damage(home, fold, snapshot)
        shown = foldchat("show", str(conversation))
        assert shown.returncode == 0 and "treated as undone" in shown.stderr, shown.stderr
