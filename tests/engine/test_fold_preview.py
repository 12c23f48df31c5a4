"""A preview says what a fold would do without applying it; applying stores exactly it."""

from __future__ import annotations

import pytest
from foldchat.engine import Session, snapshot as snap
from foldchat.engine.errors import FoldFailed
from foldchat.engine.messages import Message
from test_session_folds import open_session, store_all

from trajectories import everyday_chat


@pytest.fixture
def session(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 16_000) as opened:
        store_all(opened, everyday_chat(6)[0])
        yield opened


def test_a_preview_changes_nothing_and_says_which_messages_tokens_and_sections(session: Session):
    context, usage = session.context.messages(), session.usage()
    plan = session.preview_fold(focus="the bookings")
    assert plan is not None and plan.report.compressed
    assert session.context.active_fold() is None and session.context.messages() == context and session.usage() == usage
    assert plan.report.covers is not None and plan.report.folded_messages > 0
    assert plan.report.tokens_after < plan.report.tokens_before == usage.tokens
    assert plan.snapshot is not None and plan.snapshot.user_requests
    assert "focus requested for this fold: the bookings" in plan.snapshot.key_knowledge


def test_applying_a_preview_stores_exactly_that_result(session: Session):
    plan = session.preview_fold()
    assert plan is not None
    report = session.apply_fold(plan)
    assert report is not None and report.compressed
    sent = next(m for m in session.context.messages() if snap.is_snapshot_message(m))
    assert snap.as_data(snap.parse(sent.text), ("depth",)) == snap.as_data(plan.snapshot, ("depth",))  # type: ignore[arg-type]
    assert session.counter().count(session.context.messages()) == plan.report.tokens_after


def test_a_preview_of_a_conversation_that_changed_since_is_refused(session: Session):
    plan = session.preview_fold()
    assert plan is not None
    session.store.append(session.conversation_id, Message.assistant("One more thing about BK-1."))
    with pytest.raises(FoldFailed, match="changed since the preview"):
        session.apply_fold(plan)
    assert session.context.active_fold() is None
