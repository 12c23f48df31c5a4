"""The next fold is prepared in the background once usage passes the reset ratio, and
applied at the trigger with no summarizer call, unless what it covers changed.

The LLM summarizer is a loopback OpenAI server (tests/servers/fake_openai.py) reached through litellm;
its requests are counted. The database is a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from foldchat.engine import Message, OpenOptions, Session, snapshot as snap
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.fold.prefold import newest_turn
from foldchat.engine.invariants import violations
from foldchat.engine.policy import FoldPolicy

WINDOW = 4_000  # trigger 3,200 · reset 2,800 · target 2,000 (with 512 reserved for the reply)
SNAPSHOT = {
    "overall_goal": "Plan Ana Ruiz's trip",
    "user_requests": ["Book the rooms"],
    "decisions": ["Casa Rio for 98 EUR a night"],
}


def settings_for(fake, window: int = WINDOW) -> Settings:
    alias = {"model": "openai/fake-model", "api_base": fake.base_url, "api_key_env": "FAKE_KEY"}
    return Settings(
        default_model="fake",
        request_timeout=20,
        max_retries=0,
        summarizer="llm",
        models={"fake": ModelAlias(**alias, context_window=window), "wide": ModelAlias(**alias, context_window=8_000)},
        fold=FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=512),
    )


def open_session(fake, db: Path) -> Session:
    session = Session.open(OpenOptions(settings=settings_for(fake), database=db))
    session.connect()
    return session


@pytest.fixture
def llm(fake, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    fake.reply = json.dumps(SNAPSHOT)
    return fake


def turn(session: Session, n: int) -> None:
    """One exchange: a request with a booking code, then an answer (each about 120 tokens)."""
    session.add_user_message(f"Day {n}: book room BK-{1000 + n} for Ana Ruiz. " + "We like quiet streets. " * 12)
    session.store.append(session.conversation_id, Message.assistant(f"Booked BK-{1000 + n}. " + "Noted. " * 40))


def grow_until(session: Session, share: float, start: int) -> int:
    """Add exchanges until usage reaches `share` of the window; the next turn's number."""
    n = start
    while session.usage().used < share * session.usage().window:
        turn(session, n)
        n += 1
    return n


def summarizer_calls(fake) -> int:
    return sum(1 for body in fake.requests if not body.get("stream"))


def prepared_session(llm, tmp_path) -> tuple[Session, int]:
    session = open_session(llm, tmp_path / "app.db")
    n = grow_until(session, 0.70, 1)
    assert session.auto.prefold_due()
    assert session.auto.prepare_fold(), session.auto.prefold.failure
    return session, n


def test_a_fold_prepared_past_the_reset_ratio_applies_at_the_trigger_without_a_summarizer_call(llm, tmp_path):
    llm.answer_delay = 1.0  # a slow summarizer: the fold at the trigger must not wait for it
    session, n = prepared_session(llm, tmp_path)
    calls = summarizer_calls(llm)
    assert calls >= 1 and not session.auto.prefold_due()  # one plan at a time
    prepared_ids = [m.id for m in session.context.transcript()]
    while True:  # the TUI checks before each send: after the user message is stored
        session.add_user_message(f"Day {n}: book room BK-{1000 + n} for Ana Ruiz. " + "We like quiet streets. " * 12)
        if session.usage().used >= session.usage().trigger:
            break
        below = session.auto.fold_if_needed()
        assert below is not None and not below.compressed and summarizer_calls(llm) == calls  # not due yet
        session.store.append(session.conversation_id, Message.assistant(f"Booked BK-{1000 + n}. " + "Noted. " * 40))
        n += 1
    report = session.auto.fold_if_needed()
    assert report is not None and report.compressed, report and report.reason
    assert "prepared in the background" in report.reason
    assert summarizer_calls(llm) == calls  # applied at once: no second summarizer call
    context = session.context.messages()
    assert violations(context, [m for m in context if m.role == "system"]) == []
    assert session.counter().count(context) == report.tokens_after
    assert report.tokens_after + 512 <= session.usage().target  # docs/design.md §3.7: at or below the target
    newer = [m for m in session.context.transcript() if m.id not in prepared_ids]
    assert context[-len(newer) :] == [m.message for m in newer]  # sent after preparation: verbatim, last
    assert snap.parse(next(m for m in context if m.is_snapshot).text).overall_goal == SNAPSHOT["overall_goal"]
    assert (report.trigger_tokens, report.target_tokens) == (session.usage().trigger, session.usage().target)


def test_the_prepared_fold_is_what_a_fresh_fold_of_the_messages_it_covers_makes(llm, tmp_path):
    session = open_session(llm, tmp_path / "app.db")
    n = grow_until(session, 0.70, 1)
    used, context = session.usage().used, session.context.messages()
    counts = [session.counter().count_message(m) for m in context]
    margin = newest_turn(counts, [m.role for m in context])
    copy = tmp_path / "at-preparation.db"
    with sqlite3.connect(tmp_path / "app.db") as source, sqlite3.connect(copy) as target:
        source.backup(target)  # the conversation exactly as the preparation saw it
    assert session.auto.prepare_fold()
    n = grow_until(session, 0.80, n)
    report = session.auto.fold_if_needed()
    assert report is not None and report.compressed and "prepared" in report.reason
    with open_session(llm, copy) as fresh:
        policy = fresh.settings.fold.ahead(used, WINDOW, margin)
        plan = fresh.chain.plan_fold(fresh.target, policy=policy)
        assert plan is not None and plan.report.compressed
        sent_later = [m.message for m in session.context.transcript()[len(fresh.context.transcript()) :]]
        assert session.context.messages() == [*plan.result.messages, *sent_later]
    assert session.context.active_fold().last_message_id == plan.result.folded[-1].key  # type: ignore[union-attr]


def edit_first_prompt(session: Session) -> None:
    first = next(m for m in session.context.transcript() if m.message.role == "user")
    session.context.edit_and_resend(first.id, "Day 1: book room BK-9999 instead.")


def regenerate_last_reply(session: Session) -> None:
    stale = session.replies.replies_to_last_turn()
    row = session.store.append(session.conversation_id, Message.assistant("A regenerated answer."))
    session.store.supersede(stale, row)


def pin_first_reply(session: Session) -> None:
    session.context.pin(next(m.id for m in session.context.transcript() if m.message.role == "assistant"))


def switch_to_a_wider_window(session: Session) -> None:
    target, _ = session.check_model("wide")
    session.switch_model(target)


@pytest.mark.parametrize(
    "change", [edit_first_prompt, regenerate_last_reply, pin_first_reply, switch_to_a_wider_window]
)
def test_a_change_to_what_the_plan_covers_discards_it_and_the_normal_fold_runs(llm, tmp_path, change):
    session, n = prepared_session(llm, tmp_path)
    change(session)
    assert not session.auto.prefold.holds(session.auto._fold_inputs())
    calls = summarizer_calls(llm)
    grow_until(session, 0.80, n + 100)
    session.add_user_message("And one more question.")
    report = session.auto.fold_if_needed()
    assert report is not None and report.compressed, report and report.reason
    assert "prepared" not in report.reason and summarizer_calls(llm) > calls  # folded the normal way


def undo_active_fold(session: Session) -> None:
    session.undo_fold(session.context.active_fold().id)  # type: ignore[union-attr]


def drop_a_standing_rule(session: Session) -> None:
    """What "drop a rule" in the inspector does: the fold is edited and the drop remembered."""
    fold = session.context.active_fold()
    assert fold is not None and session.chain.standing_rules(fold)
    session.drop_rule(fold.id, 1)


@pytest.mark.parametrize("change", [undo_active_fold, drop_a_standing_rule])
def test_a_change_to_the_fold_the_plan_was_built_on_discards_it(llm, tmp_path, change):
    llm.reply = json.dumps({**SNAPSHOT, "constraints_and_preferences": ["Always answer in German."]})
    session = open_session(llm, tmp_path / "app.db")
    # the user's own words: a rule the summarizer wrote that nobody said would not be kept (snapshot_check)
    session.add_user_message("Always answer in German.")
    session.store.append(session.conversation_id, Message.assistant("Natürlich."))
    grow_until(session, 0.80, 1)
    assert session.auto.fold_if_needed().compressed  # type: ignore[union-attr]
    grow_until(session, 0.70, 50)
    assert session.auto.prepare_fold(), session.auto.prefold.failure
    assert session.auto.prefold.holds(session.auto._fold_inputs())
    change(session)
    assert not session.auto.prefold.holds(session.auto._fold_inputs())


def test_never_two_preparations_at_once_and_a_conversation_switch_drops_the_running_one(llm, tmp_path):
    llm.answer_delay = 2.0
    session = open_session(llm, tmp_path / "app.db")
    grow_until(session, 0.70, 1)
    first = threading.Thread(target=session.auto.prepare_fold)
    first.start()
    while not llm.requests:  # the preparation is waiting for the slow summarizer
        time.sleep(0.01)
    assert session.auto.prefold.running
    assert not session.auto.prefold_due() and session.auto.prepare_fold() is False  # returns at once, no second request
    assert summarizer_calls(llm) == 1
    session.switch_conversation(None)
    first.join()
    assert session.auto.prefold.running is False
    assert session.auto.prefold._pending is None  # its result arrived for a conversation no longer open


def test_at_the_trigger_a_preparation_still_running_is_waited_for_not_repeated(llm, tmp_path):
    llm.answer_delay = 1.5
    session = open_session(llm, tmp_path / "app.db")
    n = grow_until(session, 0.70, 1)
    preparing = threading.Thread(target=session.auto.prepare_fold)
    preparing.start()
    while not llm.requests:
        time.sleep(0.01)
    grow_until(session, 0.80, n)  # the trigger is reached while the summarizer is still writing
    report = session.auto.fold_if_needed()
    preparing.join()
    assert report is not None and report.compressed and "prepared" in report.reason, report and report.reason
    assert not session.auto.prefold.waiting  # used, not left for later


def test_a_failing_summarizer_leaves_no_plan_and_no_error(llm, tmp_path):
    llm.script = ["500"]
    session = open_session(llm, tmp_path / "app.db")
    grow_until(session, 0.70, 1)
    assert session.auto.prepare_fold() is False  # silent: the failure is logged and kept
    assert session.auto.prefold.failure is not None and "failed" in session.auto.prefold.failure
    llm.script = ["ok"]
    grow_until(session, 0.80, 100)
    report = session.auto.fold_if_needed()
    assert report is not None and report.compressed and report.summarizer == "llm:fake"


def test_the_rules_summarizer_never_prepares(llm, tmp_path):
    settings = settings_for(llm).model_copy(update={"summarizer": "rules"})
    with Session.open(OpenOptions(settings=settings, database=tmp_path / "app.db")) as session:
        session.connect()
        grow_until(session, 0.70, 1)
        assert not session.auto.prefold_due()


@pytest.mark.parametrize("change", [edit_first_prompt, undo_active_fold])
def test_at_the_trigger_a_stale_preparation_is_not_waited_for(llm, tmp_path, change):
    """After an undo or an edit, the send at the trigger waited for the running preparation (20 s here, up
    to request_timeout) only to throw its plan away: it is dropped at once and the normal fold runs."""
    session = open_session(llm, tmp_path / "app.db")
    grow_until(session, 0.80, 1)
    assert session.auto.fold_if_needed().compressed  # type: ignore[union-attr]  (a fold to undo)
    n = grow_until(session, 0.70, 50)
    llm.answer_delay = 30.0  # the preparation's summarizer call is slow...
    calls = summarizer_calls(llm)
    preparing = threading.Thread(target=session.auto.prepare_fold)
    preparing.start()
    while summarizer_calls(llm) == calls:
        time.sleep(0.01)
    llm.answer_delay = 0.0  # ...the calls of the fold at the trigger are not
    change(session)
    grow_until(session, 0.80, n + 100)
    session.add_user_message("And one more question.")
    report = session.auto.fold_if_needed()
    assert preparing.is_alive()  # the fold at the trigger did not wait for the stale preparation
    assert report is not None and report.compressed and "prepared" not in report.reason
    llm.released.set()
    preparing.join()
    assert not session.auto.prefold.waiting  # its plan, for inputs that are gone, is not kept
