"""session.py: the application API both faces drive, against a real SQLite file and a loopback server."""

from __future__ import annotations

import pytest
from foldchat.engine import (
    Finished,
    FoldCompleted,
    FoldStarted,
    Message,
    OpenOptions,
    Session,
    TextDelta,
    Workspace,
)
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.policy import FoldPolicy


def settings_for(fake, window: int = 16000) -> Settings:
    alias = {"model": "openai/fake-model", "api_base": fake.base_url, "api_key_env": "FAKE_KEY"}
    return Settings(
        default_model="fake",
        request_timeout=3,
        max_retries=0,
        models={"fake": ModelAlias(**alias, context_window=window), "small": ModelAlias(**alias, context_window=2000)},
        fold=FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=64),
    )


@pytest.fixture
def options(fake, tmp_path, monkeypatch) -> OpenOptions:
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    return OpenOptions(settings=settings_for(fake), database=tmp_path / "app.db")


def test_opening_continues_the_latest_conversation_unless_told_otherwise(options):
    with Session.open(options) as first:
        first.add_user_message("hello")
    with Session.open(options) as again:
        assert again.conversation_id == first.conversation_id
        assert [m.message.text for m in again.context.transcript()] == ["hello"]
    with Session.open(options._replace(new=True)) as fresh:
        assert fresh.conversation_id != first.conversation_id
    with Session.open(options._replace(conversation=first.conversation_id)) as chosen:
        assert chosen.conversation_id == first.conversation_id


def test_remembering_the_model_makes_the_next_fold_check_a_switch(options):
    with Session.open(options) as session:
        session.connect(remember=True)
        assert session.conversation() is None  # stored with its first message, with the model
        session.add_user_message("hello")
        assert session.conversation().model == "fake" and not session.auto.switched
    with Session.open(options._replace(model="small")) as session:
        session.connect(remember=True)
        assert session.auto.switched and session.conversation().model == "small"
        session.add_user_message("hi")
        session.auto.fold_if_needed()
        assert not session.auto.switched  # consumed by the check


async def test_a_reply_streams_and_is_stored_with_its_cost(options):
    with Session.open(options) as session:
        session.connect()
        session.add_user_message("Say something")
        events = [event async for event in session.reply()]
        assert any(isinstance(e, TextDelta) for e in events) and isinstance(events[-1], Finished)
        stored = session.context.transcript()[-1]
        assert stored.message.role == "assistant" and stored.status == "complete" and stored.message.text
        assert session.usage().tokens > 0


def fill(session: Session, turns: int = 8) -> None:
    for n in range(turns):
        session.add_user_message(f"Question {n} about ticket PAY-{n}: " + "details " * 300)
        session.store.append(session.conversation_id, Message.assistant("ok " * 200))
    session.add_user_message("And now?")


def test_fold_now_then_undo_and_edit_through_the_session(options):
    with Session.open(options) as session:
        session.connect()
        fill(session)
        seen: list[object] = []
        report = session.fold_now(focus="tickets", on_event=seen.append)
        assert report is not None and report.compressed
        assert isinstance(seen[0], FoldStarted) and isinstance(seen[-1], FoldCompleted)
        fold = session.context.active_fold()
        assert fold is not None and [f.id for f in session.chain.folds()] == [fold.id]
        assert "PAY-0" in session.chain.snapshot_text(fold)
        assert session.chain.snapshot_of(fold).user_requests
        corrected = "<state_snapshot>\n<key_knowledge>\n- corrected\n</key_knowledge>\n</state_snapshot>"
        session.edit_fold(fold.id, corrected)
        assert session.context.messages()[0].text == corrected
        session.undo_fold(fold.id)
        assert session.context.active_fold() is None
        assert len(session.context.messages()) == len(session.context.transcript())


def test_pins_and_the_conversation_list(options):
    with Session.open(options) as session:
        first = session.add_user_message("remember ORD-42")
        session.context.pin(first)
        assert session.context.pinned_ids() == [first]
        session.context.pin(first, False)
        assert session.context.pinned_ids() == []
        session.connect()
        session.switch_conversation(None)
        session.add_user_message("another topic")
        assert len(session.workspace.conversations()) == 2
        assert [c.id for c in session.workspace.conversations(search="ORD-42")] != [session.conversation_id]


def test_switching_model_checks_first_and_records_the_choice(options):
    with Session.open(options) as session:
        session.connect()
        session.add_user_message("hi")
        target, usage = session.check_model("small")
        assert target.window == 2000 and usage.window == 2000
        assert session.target.name == "fake"  # checking changes nothing
        session.switch_model(target)
        assert session.target.name == "small" and session.auto.switched and session.conversation().model == "small"
        assert {t.name for t, _ in session.model_usages()} >= {"fake", "small", "local"}


def test_listing_models_does_not_create_the_database(options):
    with Workspace.open(options) as workspace:
        assert {e.name for e in workspace.known_models()} >= {"fake", "small"}
    assert not options.database.exists()


def test_edit_and_resend_supersedes_from_the_prompt_and_undoes_only_covering_folds(options):
    from foldchat.engine import UsageError

    with Session.open(options) as session:
        session.connect()
        fill(session)
        session.store.append(session.conversation_id, Message.assistant("fine"))
        assert session.fold_now() is not None
        fold = session.context.active_fold()
        assert fold is not None
        after = [m for m in session.context.transcript() if m.id > fold.last_message_id and m.message.role == "user"]
        new_id, undone = session.context.edit_and_resend(after[-1].id, "And now, briefly?")
        assert undone == [] and session.context.active_fold() == fold  # the edit is after the fold: it stays
        covered = next(m for m in session.context.transcript() if m.message.role == "user")
        newer, undone = session.context.edit_and_resend(covered.id, "Only this")
        assert undone == [fold.id] and session.context.active_fold() is None
        transcript = session.context.transcript()
        assert len(transcript) == 20  # 18 + two edited prompts: nothing deleted
        assert [m.message.text for m in transcript if m.superseded_by is None] == ["Only this"]
        assert [m.text for m in session.context.messages()] == ["Only this"]
        assert session.context.last_prompt().id == newer
        with pytest.raises(UsageError, match="already replaced"):
            session.context.edit_and_resend(new_id, "again")
        with pytest.raises(UsageError, match="not a prompt"):
            session.context.edit_and_resend(transcript[1].id, "a reply is not a prompt")


def test_editing_the_prompt_a_title_came_from_retitles_unless_the_user_named_it(options):
    with Session.open(options._replace(new=True)) as session:
        session.connect()
        first = session.add_user_message("Plan a trip to Porto in May")
        session.store.append(session.conversation_id, Message.assistant("Sure."))
        second = session.add_user_message("Plan a trip to Porto in May")  # the same words again, later
        session.context.edit_and_resend(first, "Plan a trip to Lisbon in June, for two")
        assert session.conversation().title == "Plan a trip to Lisbon in June, for two"
        session.workspace.rename(session.conversation_id, "Summer")
        newest = session.context.last_prompt()
        assert newest is not None and newest.id != second  # the edit replaced it too
        session.context.edit_and_resend(newest.id, "Plan a trip to Faro instead")
        assert session.conversation().title == "Summer"


def test_editing_a_later_prompt_with_the_first_ones_words_keeps_the_title(options):
    with Session.open(options._replace(new=True)) as session:
        session.connect()
        session.add_user_message("hi")
        session.store.append(session.conversation_id, Message.assistant("Hello!"))
        second = session.add_user_message("hi")
        session.context.edit_and_resend(second, "what is the capital of Peru?")
        assert session.conversation().title == "hi"  # the first prompt, which the title names, still stands


def test_typed_text_counts_do_not_grow_the_token_cache(options):
    with Session.open(options) as session:
        session.connect()
        session.add_user_message("an earlier question")
        session.usage()
        cached = len(session.counter()._cache)
        draft = "a pasted log line\n" * 2000
        counts = [session.typed_tokens(draft + "x" * n) for n in range(50)]
        assert min(counts) > 2000
        assert len(session.counter()._cache) == cached


def test_a_new_conversation_is_stored_only_with_its_first_message(options):
    with Session.open(options._replace(new=True)) as session:
        session.connect()
        assert session.conversation_id is None and session.context.transcript() == [] and session.chain.folds() == []
        assert (
            session.usage().tokens >= 0 and session.replies.total_cost() == 0.0 and session.context.pinned_ids() == []
        )
        assert session.workspace.conversations() == []
        session.switch_conversation(None)  # /new on a new one: still nothing stored
        assert session.workspace.conversations() == []
        first = session.add_user_message("hello")
        assert session.conversation_id is not None and session.conversation().model == "fake"
        assert [m.id for m in session.context.transcript()] == [first]
        kept = session.conversation_id
        session.switch_conversation(None)
        session.switch_conversation(None)
        assert [c.id for c in session.workspace.conversations()] == [kept]  # no empty ones left behind
    with Session.open(options) as again:
        assert again.conversation_id == kept  # reopens on the last real conversation


def test_a_system_prompt_stores_a_new_conversation(options):
    with Session.open(options._replace(new=True)) as session:
        session.connect()
        session.set_system_prompt("Be brief.")
        assert session.conversation_id is not None and session.system_prompts() == ["Be brief."]


def test_an_empty_conversation_stored_earlier_is_forgotten_when_left(options):
    with Session.open(options) as setup:
        legacy = setup.store.create_conversation(model="fake")  # as older versions stored /new
    with Session.open(options._replace(conversation=legacy)) as session:
        session.connect()
        session.switch_conversation(legacy)  # resuming the open one keeps it
        assert session.conversation_id == legacy
        session.switch_conversation(None)
        assert session.workspace.conversations() == []
