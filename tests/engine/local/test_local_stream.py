"""The direct path to the local model (`local_stream`) behaves as the litellm path does, fault for fault.

Both paths talk to the same loopback fake; a target marked `is_local` goes direct, the same target
unmarked goes through litellm. Same events, same error lines, same partial replies, same request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest
from foldchat.engine.config import Settings
from foldchat.engine.context import Context
from foldchat.engine.providers.backend import EMBEDDED, PROVIDER
from foldchat.engine.providers.events import Failed, Finished, Retrying, TextDelta, UsageReport
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.providers.stream import stream_reply
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.replies import Replies
from foldchat.engine.store import Store

from servers.fake_openai import FakeOpenAI

HELLO = [{"role": "user", "content": "hi"}]


def local_target(base_url: str) -> ModelTarget:
    return ModelTarget(
        name="local", litellm_model="openai/fake-model", window=8192, api_base=base_url, max_output_tokens=64,
        backend=EMBEDDED, temperature=0.7, extra_body={"repeat_penalty": 1.3}, api_key="session-key",
    )  # fmt: skip


def through_litellm(target: ModelTarget) -> ModelTarget:
    return dataclasses.replace(target, backend=PROVIDER)


async def events_of(target: ModelTarget, **options: object) -> list[object]:
    options = {"timeout": 1.0, "max_retries": 0, **options}
    return [event async for event in stream_reply(target, HELLO, **options)]  # type: ignore[arg-type]


def summary(events: list[object]) -> list[object]:
    """What a caller sees, comparable across paths: texts, usage, retries, the end and its partial reply."""
    out: list[object] = []
    for event in events:
        if isinstance(event, TextDelta | UsageReport):
            out.append(event)
        elif isinstance(event, Retrying):
            out.append(("retry", event.attempt, event.delay, event.reason))
        elif isinstance(event, Finished):
            out.append(("finished", event.message.to_dict(), event.finish_reason, event.usage))
        elif isinstance(event, Failed):
            partial = event.partial.to_dict() if event.partial else None
            out.append(("failed", event.error, partial, event.retryable))
    return out


SCRIPTS = ["ok", "500", "429:0", "404", "400", "drop", "garbage", "nofinish", "empty", "blank", "stall", "hang"]


@pytest.mark.parametrize("script", [[s] for s in SCRIPTS] + [["500", "ok"], ["429:0", "ok"]], ids="+".join)
async def test_the_direct_path_yields_what_litellm_yields(fake: FakeOpenAI, script: list[str], monkeypatch):
    monkeypatch.setattr("foldchat.engine.providers.errors.random.random", lambda: 0.5)  # the same backoff twice
    fake.script = list(script)
    through = await events_of(through_litellm(local_target(fake.base_url)), max_retries=1, sleep=_no_sleep)
    fake.release()  # a hang or stall from the first run ends now; the second run gets its own below
    fake.released.clear()
    fake.script = list(script)
    direct = await events_of(local_target(fake.base_url), max_retries=1, sleep=_no_sleep)
    fake.release()
    assert summary(direct) == summary(through)
    assert isinstance(direct[-1], Finished | Failed)


async def _no_sleep(_delay: float) -> None:
    pass


CALL = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": None, "tool_calls": [CALL], "reasoning_content": "look first"},
    {"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": "ok"},
    {"role": "user", "content": "so?"},
]


async def test_the_request_is_the_one_litellm_sends(fake: FakeOpenAI):
    for target in (through_litellm(local_target(fake.base_url)), local_target(fake.base_url)):
        assert isinstance([e async for e in stream_reply(target, HISTORY, timeout=30)][-1], Finished)
    via_litellm, direct = fake.requests
    keys = ("model", "messages", "stream", "stream_options", "max_tokens", "temperature", "repeat_penalty")
    assert {k: direct.get(k) for k in keys} == {k: via_litellm.get(k) for k in keys}
    assert direct["model"] == "fake-model" and direct["repeat_penalty"] == 1.3
    assert fake.headers[-1]["authorization"] == "Bearer session-key"


async def test_a_rejected_session_key_says_it_is_the_local_servers(fake: FakeOpenAI):
    fake.script = ["401"]
    failed = (await events_of(local_target(fake.base_url)))[-1]
    assert isinstance(failed, Failed) and not failed.retryable
    assert failed.error == "local: authentication failed: the local model server rejected this session's key"


async def test_an_overlong_conversation_says_fold_it(fake: FakeOpenAI):
    fake.context_window = 10  # the fake refuses as OpenAI does
    failed = (await events_of(local_target(fake.base_url), timeout=60))[-1]  # the fake counts with litellm
    assert isinstance(failed, Failed)
    assert failed.error == "local: the conversation is larger than the model's window; /resummarize folds it"


async def test_a_proxy_in_the_environment_never_sees_the_local_traffic(fake: FakeOpenAI, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there: using it would fail
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    assert isinstance((await events_of(local_target(fake.base_url)))[-1], Finished)


async def test_cancelling_mid_reply_keeps_the_partial_reply_marked_interrupted(fake: FakeOpenAI, tmp_path: Path):
    fake.script = ["slow"]  # a chunk every 0.1 s for 10 s
    store = Store(tmp_path / "db.sqlite")
    settings = Settings()
    chat = Replies(Context(store, ModelRegistry(settings), settings, store.create_conversation()))
    chat.add_user_message("count")
    seen: list[str] = []

    async def consume() -> None:
        async for event in chat.reply(local_target(fake.base_url)):
            if isinstance(event, TextDelta):
                seen.append(event.text)

    task = asyncio.create_task(consume())
    while len(seen) < 3:
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 60)  # a guard against a deadlock, not a timing assertion
    reply = chat.context.transcript()[-1]
    assert reply.status == "interrupted" and reply.message.text.startswith("".join(seen[:3]))
    assert 0 < len(reply.message.text.split()) < 100  # cut, not finished
    store.close()


async def test_a_stopped_stream_stops_its_reader_at_once_even_when_the_server_closes_after_the_body():
    """A response that will close its connection (`Connection: close`, or HTTP/1.0) takes the socket from
    http.client's connection: stopping the stream must still wake the thread blocked on it, not leave it
    reading until the server's next words (or the read timeout)."""
    import socket

    from foldchat.engine.local.stream import stream_chunks

    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            chunk = b'{"choices": [{"index": 0, "delta": {"content": "Hello"}}]}'
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                               b"data: " + chunk + b"\n\n")  # fmt: skip
            done.wait(30)  # then silence

    threading.Thread(target=serve, daemon=True).start()
    before = set(threading.enumerate())
    chunks = stream_chunks(local_target(f"http://127.0.0.1:{listener.getsockname()[1]}/v1"), HELLO, timeout=30)
    try:
        assert (await anext(chunks)).choices[0].delta.content == "Hello"
        readers = [t for t in threading.enumerate() if t.name == "local-stream" and t not in before]
        assert len(readers) == 1
        await asyncio.sleep(0.3)  # the reader now waits on the socket
        await chunks.aclose()
        readers[0].join(timeout=2)
        assert not readers[0].is_alive()
    finally:
        done.set()
        listener.close()


class _Body:
    """A response read in pieces, as a socket delivers it."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def read1(self, _size: int) -> bytes:
        return self.pieces.pop(0) if self.pieces else b""


def test_event_lines_end_with_lf_crlf_or_cr_wherever_the_reads_split_them():
    from foldchat.engine.local.stream import _lines

    pieces = [b"data: a\r", b"\ndata: b\rdata: c", b"\n\n: ping\r\n", b"data: [DONE]"]
    assert [line for line in _lines(_Body(pieces)) if line] == [
        b"data: a", b"data: b", b"data: c", b": ping", b"data: [DONE]"
    ]  # fmt: skip
