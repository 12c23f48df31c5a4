"""Past the trigger, the usage says what keeps the next send from folding: the policy's cooldown after a fold,
or a fold that left the context above `reset_ratio`. The gauge said "folds next send" then, and no fold came
(a 4.5k-token send right after a fold)."""

from __future__ import annotations

from foldchat.engine import Message, OpenOptions, Session
from foldchat.engine.policy import FoldPolicy
from test_session_folds import settings_for, store_all

from trajectories import everyday_chat


def open_folded(fake, tmp_path, monkeypatch, policy: FoldPolicy) -> Session:
    """A session whose conversation was folded a moment ago."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    settings = settings_for(fake, 8000).model_copy(update={"fold": policy})
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "app.db"))
    session.connect()
    store_all(session, everyday_chat(12)[0])
    report = session.fold_now()
    assert report is not None and report.compressed, report and report.reason
    return session


def past_the_trigger(session: Session) -> None:
    """One long prompt after the fold: the context is past the trigger again, not past the window."""
    usage = session.usage()
    words = usage.trigger - usage.used + 300  # ~1 token a word
    session.store.append(session.conversation_id, Message.user("the itinerary again: " + "Lisbon " * words))


def test_the_cooldown_after_a_fold_is_what_the_usage_says_and_it_ends(fake, tmp_path, monkeypatch):
    policy = FoldPolicy(min_messages=2, cooldown_messages=4, reserved_output=512)
    with open_folded(fake, tmp_path, monkeypatch, policy) as session:
        past_the_trigger(session)
        usage = session.usage()
        assert not usage.fits and usage.held == "cooldown"
        assert session.auto.at_trigger(usage) == "cooldown"  # what the gauge says, not "folds"
        decision, _ = session.chain.fold_decision(session.target)
        assert not decision.fold and decision.held == "cooldown"  # the policy at the send agrees
        while session.chain.fold_history(session.target).messages_since < 3:  # the next send is the 4th
            session.store.append(session.conversation_id, Message.assistant("noted"))
        usage = session.usage()
        assert usage.held == "" and session.auto.at_trigger(usage) == "folds"


def test_a_fold_that_left_the_context_above_reset_holds_automatic_folds(fake, tmp_path, monkeypatch):
    policy = FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=512, target_ratio=0.75, reset_ratio=0.3)
    with open_folded(fake, tmp_path, monkeypatch, policy) as session:
        past_the_trigger(session)
        usage = session.usage()
        assert not usage.fits and usage.used < usage.window and usage.held == "not re-armed"
        assert session.auto.at_trigger(usage) == "not re-armed"


def test_under_the_trigger_nothing_is_held(fake, tmp_path, monkeypatch):
    policy = FoldPolicy(min_messages=2, cooldown_messages=4, reserved_output=512)
    with open_folded(fake, tmp_path, monkeypatch, policy) as session:
        usage = session.usage()
        assert usage.fits and usage.held == ""
