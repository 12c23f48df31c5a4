"""Streams that end badly, through litellm against the loopback fake: said plainly, nothing lost.

In-process (`stream_reply` and `Replies.reply`), so each case costs one request, not a CLI start.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.context import Context
from foldchat.engine.providers.events import Failed, Finished, Retrying
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.providers.stream import stream_reply
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.replies import Replies
from foldchat.engine.store import Store

from servers.fake_openai import FakeOpenAI

HELLO = [{"role": "user", "content": "hi"}]


def target_for(base_url: str, **extra: object) -> ModelTarget:
    return ModelTarget(
        name="fake",
        litellm_model="openai/fake-model",
        window=16000,
        api_base=base_url,
        **extra,  # type: ignore[arg-type]
    )


async def events_of(target: ModelTarget, **options: object) -> list[object]:
    options = {"timeout": 2.0, "max_retries": 0, **options}
    return [event async for event in stream_reply(target, HELLO, **options)]  # type: ignore[arg-type]


@pytest.fixture
def session(tmp_path: Path, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Iterator[Replies]:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = Settings(
        models={"fake": ModelAlias(model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_API_KEY",
                                   context_window=16000)},
        request_timeout=2, max_retries=1,
    )  # fmt: skip
    store = Store(tmp_path / "faults.db")
    yield Replies(Context(store, ModelRegistry(settings), settings, store.create_conversation()))
    store.close()


async def reply_to(session: Replies, text: str) -> list[object]:
    session.add_user_message(text)
    return [event async for event in session.reply(session.registry.resolve("fake"))]


async def test_a_stream_without_a_finish_reason_is_an_error_with_its_text_kept(session, fake):
    fake.script = ["nofinish"]
    events = await reply_to(session, "talk")
    failed = events[-1]
    assert isinstance(failed, Failed) and "ended before the model finished" in failed.error
    assert "partial reply kept" in failed.error
    reply = session.context.transcript()[-1]
    assert reply.status == "error" and reply.message.text == fake.reply and "ended before" in (reply.error or "")
    assert len(fake.requests) == 1  # text had arrived: a retry would repeat it


async def test_an_empty_200_stream_is_an_error_and_is_never_sent_back(session, fake):
    fake.script = ["empty"]
    events = await reply_to(session, "first")
    assert isinstance(events[-1], Failed) and "ended before the reply began" in events[-1].error
    assert [e for e in events if isinstance(e, Retrying)]  # nothing came: trying again is safe
    assert session.context.transcript()[-1].status == "error"
    fake.script = ["ok"]
    events = await reply_to(session, "second")
    assert isinstance(events[-1], Finished)
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["user"]  # the two questions, merged; no empty assistant between
    assert "first" in sent[0]["content"] and "second" in sent[0]["content"]


async def test_a_finished_reply_with_no_text_is_an_error_not_a_complete_empty_reply(session, fake):
    fake.script = ["blank"]
    events = await reply_to(session, "anything?")
    assert isinstance(events[-1], Failed) and "empty reply" in events[-1].error
    assert session.context.transcript()[-1].status == "error"


@pytest.mark.parametrize(
    ("behaviour", "says"),
    [
        ("drop", "closed the connection in the middle of the reply (partial reply kept)"),
        ("garbage", "malformed stream"),
        ("stall", "the stream stalled: no data for 2 s (partial reply kept)"),
        ("hang", "no answer within the timeout (2 s)"),
        ("500", "server error 500"),
    ],
)
async def test_each_transport_fault_says_what_happened(fake, behaviour, says):
    fake.script = [behaviour]
    events = await events_of(target_for(fake.base_url, api_key="sk-test"))
    failed = events[-1]
    assert isinstance(failed, Failed) and says in failed.error
    if behaviour != "500":
        assert "500" not in failed.error


async def test_a_refused_connection_says_so():
    with socket.socket() as bound_not_listening:  # connecting to it is refused, and no one can take the port
        bound_not_listening.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{bound_not_listening.getsockname()[1]}/v1"
        failed = (await events_of(target_for(base, api_key="sk-test")))[-1]
    assert isinstance(failed, Failed)
    assert failed.error == f"fake: cannot connect to {base}: connection refused"


async def test_a_rejected_key_names_the_variable_that_holds_it(fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    fake.script = ["401"]
    failed = (await events_of(target_for(fake.base_url)))[-1]
    assert isinstance(failed, Failed) and "check OPENAI_API_KEY" in failed.error
    assert len(fake.requests) == 1  # never retried


async def test_one_deadline_bounds_every_retry(fake):
    fake.script = ["hang"]
    waits: list[float] = []

    async def no_sleep(delay: float) -> None:
        waits.append(delay)

    events = await events_of(target_for(fake.base_url, api_key="k"), timeout=1.0, max_retries=50, deadline=3.0,
                             sleep=no_sleep)  # fmt: skip
    failed = events[-1]
    assert isinstance(failed, Failed) and "request_deadline" in failed.error
    # each attempt waits at most the timeout, so a 3 s deadline leaves room for a few, never for 51
    assert 2 <= len(fake.requests) <= 4


async def test_cancelling_the_reply_stops_the_wait_at_once(fake):
    fake.script = ["hang"]  # the fake answers nothing until it is released, which happens only at teardown

    async def consume() -> None:
        async for _ in stream_reply(target_for(fake.base_url, api_key="k"), HELLO, timeout=600, max_retries=0):
            pass

    task = asyncio.create_task(consume())
    while not fake.requests:  # the request is on the wire
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 60)  # a guard against a deadlock, not a timing assertion
    assert not fake.released.is_set()  # the server never answered: the wait itself was cancelled


GOOD_SNAPSHOT = {"overall_goal": "Plan the trip TR-44", "user_requests": ["Book the trip TR-44"]}


def test_the_llm_summarizer_waits_out_a_429_instead_of_falling_back(fake):
    from foldchat.engine.messages import Message
    from foldchat.engine.summarizers.base import SummaryRequest
    from foldchat.engine.summarizers.llm import LLMSummarizer, WithFallback

    fake.script = ["429:2", "ok"]
    fake.reply = json.dumps(GOOD_SNAPSHOT)
    waited: list[float] = []
    llm = LLMSummarizer(target_for(fake.base_url, api_key="k"), timeout=10, sleep=waited.append)
    summarizer = WithFallback(llm)
    request = SummaryRequest(messages=[Message.user("Book the trip TR-44")], output_budget=500)
    snapshot = summarizer.summarize(request)
    assert summarizer.name == "llm:fake" and snapshot.overall_goal == GOOD_SNAPSHOT["overall_goal"]
    assert waited == [2.0] and len(fake.requests) == 2


def test_the_llm_summarizer_gives_up_on_endless_429s_and_says_so(fake):
    from foldchat.engine.messages import Message
    from foldchat.engine.summarizers.base import SummaryRequest
    from foldchat.engine.summarizers.llm import LLMSummarizer, WithFallback

    fake.script = ["429:1"]
    summarizer = WithFallback(LLMSummarizer(target_for(fake.base_url, api_key="k"), timeout=10, sleep=lambda _: None))
    summarizer.summarize(SummaryRequest(messages=[Message.user("Book the trip TR-44")], output_budget=500))
    assert summarizer.name.startswith("rules") and "rate limited (429)" in summarizer.name
    assert len(fake.requests) == 4  # the first try and three waits


async def test_the_context_of_a_reply_is_built_off_the_event_loop(session: Replies, fake: FakeOpenAI) -> None:
    """Building a context reads the whole transcript back (~0.1 s at 2,000 messages): on the event loop it
    froze the UI at every send of a long conversation."""
    import threading

    built_on: list[threading.Thread] = []
    build = session.context.adapted

    def recorded(*args: object, **kwargs: object) -> list[object]:
        built_on.append(threading.current_thread())
        return build(*args, **kwargs)  # type: ignore[arg-type]

    session.context.adapted = recorded  # type: ignore[method-assign,assignment]
    fake.reply = "fine"
    events = await reply_to(session, "hello")
    assert isinstance(events[-1], Finished)
    assert built_on and threading.main_thread() not in built_on
