"""A fold whose stored snapshot is not valid JSON (a damaged or hand-edited database): the app opens the
conversation, shows it without that fold, and says so once, not at every message."""

from __future__ import annotations

import sqlite3

from foldchat.engine import Message, OpenOptions, Session
from foldchat.tui.widgets.fold_marker import FoldMarker
from foldchat.tui.widgets.message import MessageView

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import ready_chat, send


def damaged(app) -> list[str]:
    return [str(n.message) for n in app._notifications if "damaged" in str(n.message)]


async def test_the_app_opens_a_conversation_whose_fold_is_damaged_and_says_so_once(app_factory, fake, tmp_path):
    settings = settings_for(fake).model_copy(update={"summarizer": "rules"})
    with Session.open(OpenOptions(settings=settings, database=tmp_path / "tui.db", new=True)) as session:
        session.connect()
        for n in range(4):
            session.add_user_message(f"question {n} about BILL-{n}: " + "invoice lines and totals " * 80)
            session.store.append(session.conversation_id, Message.assistant(f"answer {n}"))
        report = session.fold_now()
        assert report is not None and report.compressed, report and report.reason
        fold = session.context.active_fold().id
    with sqlite3.connect(tmp_path / "tui.db") as db:
        db.execute("UPDATE folds SET snapshot = '{\"goal\": ' WHERE id = ?", (fold,))

    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await wait_for(pilot, lambda: damaged(app))
        assert f"fold {fold} is damaged" in damaged(app)[0]
        assert len(screen.query(MessageView)) == 8 and not screen.query(FoldMarker)
        await send(pilot, "and the totals?")
        assert len(damaged(app)) == 1  # once per open, not per message
        assert "<state_snapshot>" not in str(fake.requests[-1]["messages"])
