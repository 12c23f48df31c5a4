"""Consent to fold: `fold.auto` on (default), ask (the policy's fold waits for a yes), off."""

from __future__ import annotations

import pytest
from foldchat.engine import Session, UsageError
from foldchat.engine.config import Settings
from foldchat.engine.policy import FoldPolicy
from test_session_folds import open_session, settings_for, store_all

from trajectories import everyday_chat

WINDOW = 8_000


def near_trigger_chat(turns: int) -> list[dict]:
    raw, _ = everyday_chat(turns)
    return raw


@pytest.fixture
def session(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, WINDOW) as opened:
        yield opened


def test_the_default_is_on_and_folds_at_the_trigger(session: Session):
    assert Settings().fold.auto == "on" and session.auto.mode == "on"
    store_all(
        session, near_trigger_chat(5)
    )  # 7,375 tokens with the reserve: over the trigger (6,400), under the window
    report = session.auto.fold_if_needed()
    assert report is not None and report.compressed


def test_ask_waits_for_a_yes_and_says_what_the_fold_would_save(session: Session):
    session.auto.set_mode("ask")
    store_all(session, near_trigger_chat(5))
    before = session.usage()
    report = session.auto.fold_if_needed()
    assert report is not None and report.awaiting_consent and not report.compressed
    assert f"{before.used - before.target:,} tokens" in report.reason
    assert session.context.active_fold() is None and session.usage() == before  # nothing applied
    folded = session.auto.fold_if_needed(consented=True)
    assert folded is not None and folded.compressed and session.context.active_fold() is not None


def test_not_now_is_not_asked_again_until_the_context_grows(session: Session):
    session.auto.set_mode("ask")
    store_all(session, near_trigger_chat(5))
    assert session.auto.fold_if_needed().awaiting_consent  # type: ignore[union-attr]
    session.auto.decline()
    again = session.auto.fold_if_needed()
    assert again is not None and not again.awaiting_consent and "declined" in again.reason
    store_all(session, everyday_chat(3, seed=21)[0][1:])  # the next turns push it over the window
    assert session.auto.fold_if_needed().awaiting_consent  # type: ignore[union-attr]


def test_off_never_folds_automatically_but_asks_when_the_send_would_not_fit(session: Session):
    session.auto.set_mode("off")
    store_all(session, near_trigger_chat(5))
    assert session.usage().used < WINDOW
    report = session.auto.fold_if_needed()
    assert report is not None and not report.awaiting_consent and "off" in report.reason
    store_all(session, everyday_chat(3, seed=21)[0][1:])
    assert session.usage().used >= WINDOW
    report = session.auto.fold_if_needed()
    assert report is not None and report.awaiting_consent and "would not fit" in report.reason


def test_fold_modes_are_validated(session: Session):
    session.auto.set_mode("auto")
    assert session.auto.mode == "on"
    with pytest.raises(UsageError):
        session.auto.set_mode("sometimes")
    with pytest.raises(UsageError):
        FoldPolicy.checked(auto="sometimes")
    assert settings_for  # the shared helper stays the one place settings are built


def test_the_gauge_is_told_what_a_send_past_the_trigger_does(session: Session):
    """It said "folds on next send" in ask mode, and after "not now" too, when the send neither asked nor folded."""
    store_all(session, near_trigger_chat(5))
    usage = session.usage()
    assert usage.used >= usage.trigger and session.auto.at_trigger(usage) == "folds"
    session.auto.set_mode("ask")
    assert session.auto.at_trigger(usage) == "asks"
    session.auto.decline()
    assert session.auto.at_trigger(usage) == "declined"
    session.auto.set_mode("off")
    assert session.auto.at_trigger(usage) == "off"


def test_usage_says_what_a_recent_turn_adds_long_prompts_included(session: Session):
    """The gauge's "turns left" divided by twice the replies' length: long prompts made it promise 17 turns
    where 3 were left."""
    assert session.usage().per_turn == 0  # no turn yet
    for n in range(3):
        store_all(session, [{"role": "user", "content": f"Note {n}: " + "the ferry leaves at 7:40 from pier 3. " * 60},
                            {"role": "assistant", "content": "Noted."}])  # fmt: skip
    usage = session.usage()
    prompt = session.counter().count_text("the ferry leaves at 7:40 from pier 3. " * 60)
    assert prompt <= usage.per_turn <= usage.tokens // 3 + 10
