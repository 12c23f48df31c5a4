"""Whole turns run by the engine, without Textual: the prompt stored, the fold (with the face's consent or
without), the refusal of what cannot fit, a recall round and an interrupt mid-stream, against a loopback
server that speaks OpenAI's wire format, reached through litellm."""

from __future__ import annotations

import asyncio
import json

import pytest
from foldchat.engine import (
    Finished,
    Folded,
    FoldReport,
    FoldSkipped,
    FoldStarted,
    OpenOptions,
    PromptStored,
    Refused,
    Session,
    TextDelta,
    ToolCallsAnswered,
    TurnEnded,
)
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.invariants import violations
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy

from servers.fake_openai import FakeOpenAI
from trajectories import everyday_chat


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def open_session(fake, tmp_path, monkeypatch, auto: str = "on", window: int = 6_000, turns: int = 16) -> Session:
    """A session on the fake model whose history is past the fold trigger."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    alias = ModelAlias(model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=window)
    settings = Settings(
        default_model="fake", request_timeout=5, max_retries=0, summarizer="rules", models={"fake": alias},
        fold=FoldPolicy(auto=auto, min_messages=2, cooldown_messages=0, reserved_output=512),
    )  # fmt: skip
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "app.db"))
    session.connect()
    for message in parse_messages(everyday_chat(turns)[0]):
        session.store.append(session.context.stored_id(), message)
    return session


async def run(session: Session, prompt: str | None, **kwargs) -> list:
    return [event async for event in session.turn(prompt, **kwargs)]


def kinds(events: list) -> list[str]:
    """The event types in order, each run of one type once."""
    out: list[str] = []
    for event in events:
        if not out or out[-1] != type(event).__name__:
            out.append(type(event).__name__)
    return out


async def test_a_turn_stores_the_prompt_folds_and_streams_in_that_order(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch) as session:
        assert session.usage().used >= session.usage().trigger
        events = await run(session, "And what about the ferry?")
        order = kinds(events)
        assert order[0] == "PromptStored" and order[-1] == "TurnEnded"
        assert order.index("FoldStarted") < order.index("Folded") < order.index("ReplyAsked") < order.index("TextDelta")
        assert order.index("TextDelta") < order.index("Finished")
        stored = events[0]
        assert isinstance(stored, PromptStored) and session.context.transcript()[-2].id == stored.message_id
        end = events[-1]
        assert isinstance(end, TurnEnded) and end.reply_id == session.context.transcript()[-1].id
        assert end.usage.used < end.usage.trigger and violations(session.context.messages()) == []
        assert fake.requests[-1]["messages"][-1]["content"] == "And what about the ferry?"


@pytest.mark.parametrize("answer", [True, False])
async def test_with_fold_auto_ask_the_face_consents_or_the_reply_goes_unfolded(fake, tmp_path, monkeypatch, answer):
    asked: list[FoldReport] = []

    async def consent(report: FoldReport) -> bool:
        asked.append(report)
        return answer

    with open_session(fake, tmp_path, monkeypatch, auto="ask", window=16_000, turns=10) as session:
        assert session.usage().trigger <= session.usage().used <= session.usage().window  # fits unfolded too
        events = await run(session, "One more question.", consent=consent)
        assert len(asked) == 1 and asked[0].awaiting_consent
        folded = [e for e in events if isinstance(e, Folded)]
        skipped = [e for e in events if isinstance(e, FoldSkipped)]
        assert bool(folded) == answer and bool(skipped) != answer
        assert any(isinstance(e, FoldStarted) for e in events) == answer
        assert isinstance(events[-2], Finished) and (session.context.active_fold() is not None) == answer
        assert (session.auto.declined_at is not None) != answer


async def test_without_anyone_to_consent_what_does_not_fit_unfolded_is_refused(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, auto="ask", window=4_000, turns=30) as session:
        assert session.usage().used > session.usage().window
        events = await run(session, "Still there?")
        refused = [e for e in events if isinstance(e, Refused)]
        assert refused and refused[0].needs_fold and "fold.auto is ask" in refused[0].reason
        assert not any(isinstance(e, TextDelta) for e in events) and fake.requests == []
        assert session.context.transcript()[-1].status == "unsent" and isinstance(events[-1], TurnEnded)
        assert events[-1].reply_id is None


async def test_a_prompt_too_big_for_any_fold_is_refused_before_it_is_stored(fake, tmp_path, monkeypatch):
    """Both faces refuse it the same way (issue 42): nothing is stored, the face gives the text back."""
    with open_session(fake, tmp_path, monkeypatch, window=4_000, turns=2) as session:
        stored = len(session.context.transcript())
        events = await run(session, "word " * 6_000)
        refused = next(e for e in events if isinstance(e, Refused))
        assert refused.up_front and not refused.needs_fold and refused.message_id is None
        assert refused.reason.startswith("the message is ") and "over fake's 4,000-token window" in refused.reason
        assert [type(e).__name__ for e in events] == ["Refused", "TurnEnded"]
        assert len(session.context.transcript()) == stored and fake.requests == []


async def test_a_recall_round_happens_inside_the_turn(fake, tmp_path, monkeypatch):
    fake.script = ["tool", "ok"]
    fake.tool_calls = [("recall", json.dumps({"message": 1}))]
    with open_session(fake, tmp_path, monkeypatch) as session:
        events = await run(session, "What did I say first?")
        assert any(isinstance(e, Folded) for e in events)
        answered = [e for e in events if isinstance(e, ToolCallsAnswered)]
        assert answered and answered[0].more and len(fake.requests) == 2
        assert isinstance(events[-2], Finished) and isinstance(events[-1], TurnEnded)
        assert (
            events[-1].reply_id == session.context.transcript()[-1].id and violations(session.context.messages()) == []
        )


async def test_cancelling_the_turn_mid_stream_keeps_the_prompt_and_marks_the_reply_interrupted(
    fake, tmp_path, monkeypatch
):
    fake.script = ["held"]
    fake.reply = "one two three four five six seven eight"
    fake.hold_after = 3
    fake.answer_gate.clear()
    with open_session(fake, tmp_path, monkeypatch, turns=2) as session:
        seen: list = []

        async def consume() -> None:
            async for event in session.turn("Count for me."):
                seen.append(event)

        task = asyncio.create_task(consume())
        for _ in range(200):
            if any(isinstance(e, TextDelta) for e in seen):
                break
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        fake.answer_gate.set()
        *_, prompt, reply = session.context.transcript()
        assert prompt.message.text == "Count for me." and prompt.status == "complete"
        assert reply.status == "interrupted" and reply.message.text.startswith("one")
        assert not any(isinstance(e, TurnEnded) for e in seen)


async def test_the_turn_writes_and_counts_nothing_on_the_event_loop(fake, tmp_path, monkeypatch):
    """The reply's rows (created, saved while streaming, finished) and its counts are made off the loop, as
    this module's docstring says: a face's loop never waits for the disk or the local model."""
    import threading

    fake.reply = " ".join(f"word{n}" for n in range(60))
    fake.pace = 0.01  # a streaming save or two (every SAVE_INTERVAL)
    with open_session(fake, tmp_path, monkeypatch, window=16_000, turns=2) as session:
        store, loop_thread, on_loop = session.store, threading.get_ident(), []
        for name in ("append", "update_streaming", "finish", "supersede"):
            real = getattr(store, name)

            def watched(*args, _real=real, _name=name, **kwargs):  # type: ignore[no-untyped-def]
                if threading.get_ident() == loop_thread:
                    on_loop.append(_name)
                return _real(*args, **kwargs)

            monkeypatch.setattr(store, name, watched)
        events = await run(session, "Tell me a long story.")
        assert isinstance(events[-2], Finished) and on_loop == [], on_loop
        stopped = asyncio.ensure_future(run(session, "And another."))  # cancelled mid-stream: kept interrupted
        await asyncio.sleep(0.3)
        stopped.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopped
        assert on_loop == [], on_loop
