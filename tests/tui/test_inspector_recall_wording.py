"""The fold inspector shows a snapshot as the model reads it: a model offered no `recall` tool (the local
model, or one litellm does not know to call tools) is sent "2 requests left out of this snapshot (#1, #3)"
without "(recall them by number)" (engine/recall_wording.py), and the inspector said the words it never
sees, inviting a recall nobody could make."""

from __future__ import annotations

import pytest
from foldchat.engine import OpenOptions, Session, snapshot as snap
from foldchat.tui.presenters import fold_view

from engine.test_session import fill, settings_for

LEFT_OUT = "2 requests left out of this snapshot (recall them by number) (#1, #3)"


@pytest.fixture
def session(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    with Session.open(OpenOptions(settings=settings_for(fake), database=tmp_path / "app.db")) as session:
        session.connect()
        fill(session)
        session.fold_now()
        fold = session.context.active_fold()
        edited = snap.Snapshot(overall_goal="A week in Porto", user_requests=[LEFT_OUT], covers="1..4")
        session.edit_fold(fold.id, snap.render_message_text(edited))
        yield session


def requests_shown(session: Session) -> list[str]:
    view = fold_view(session, session.context.active_fold().id)
    return dict(view.sections)["user_requests"]


def test_a_model_without_recall_is_not_said_to_recall_in_the_inspector(session):
    assert not session.context.offers_recall(session.target)  # the fake model: litellm knows no tools for it
    assert requests_shown(session) == ["2 requests left out of this snapshot (#1, #3)"]


def test_a_model_offered_recall_sees_the_words_that_say_how(session, monkeypatch):
    monkeypatch.setattr(session.context, "offers_recall", lambda target: True)
    assert requests_shown(session) == [LEFT_OUT]
