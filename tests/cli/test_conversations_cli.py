"""`foldchat show` and the Markdown export: the conversation's own message numbers, and each fold where it
happened, with the count the app shows."""

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
    line = f"── folded {count} messages ({first}..{last}) · {fold.tokens_before:,} → {fold.tokens_after:,}"
    assert line in shown

    exported = run("export", str(conversation), "--format", "md", env=environment(tmp_path)).stdout
    after_last = exported.index(f"## [{last}] ")
    assert exported.index(f"> {line}") > after_last  # under the message the fold ends on, as `show` puts it
    assert exported.index(f"> {line}") < exported.index(f"## [{last + 1}] ")
    snapshot = exported.split("<details>", 1)[1].split("</details>", 1)[0]
    assert "</state_snapshot>" in snapshot and "BILL-0" in snapshot  # what was sent instead of the folded turns


def test_a_summarizer_that_quotes_a_provider_error_is_shown_not_run(tmp_path):
    """A fold's summarizer line can carry a provider's error text: data, shown with its control bytes visible."""
    from foldchat.engine import Archive

    with Archive.open(OpenOptions(database=tmp_path / "db.sqlite")) as archive:
        store = archive.store
        cid = store.create_conversation()
        ids = [store.append(cid, Message.user(f"question {n}")) for n in range(2)]
        store.add_fold(
            cid, first_message_id=ids[0], last_message_id=ids[0], snapshot={"overall_goal": "answer questions"},
            summarizer="rules (llm:work failed: \x1b]2;owned\x07 [red]503[/]\n## [9] system\n<details>)", trigger="manual",
            tokens_before=100, tokens_after=40,
        )  # fmt: skip
    for args in (["show", str(cid)], ["export", str(cid), "--format", "md"]):
        printed = run(*args, env=environment(tmp_path)).stdout
        assert "failed: " in printed and "[red]503[/]" in printed, args
        assert "\x1b" not in printed and "\x07" not in printed, args
        assert not any(line.startswith("## [9]") for line in printed.splitlines()), args  # one line, in its quote


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
