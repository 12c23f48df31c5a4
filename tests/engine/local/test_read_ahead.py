"""Reading a changed context ahead on the local model (docs/design.md §10): one request for one token of the
new context, in the background, the newest context winning, and a reply that goes after it."""

from __future__ import annotations

from foldchat.engine.local.prefix_warm import PrefixWarmer
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.target import ModelTarget


def local_target(fake) -> ModelTarget:
    return ModelTarget(
        name="local", litellm_model="openai/foldchat-local", window=8192, api_base=fake.base_url,
        max_output_tokens=512, backend=EMBEDDED, temperature=0.7, api_key="session-key",
    )  # fmt: skip


def test_the_context_is_read_ahead_with_one_token_in_the_background(fake):
    warmer = PrefixWarmer()
    context = [{"role": "user", "content": "where were we?"}, {"role": "assistant", "content": "Lisbon."}]
    warmer.start(local_target(fake), context)
    assert warmer.wait(10)
    assert warmer.warmed == 1
    sent = fake.requests[-1]
    assert sent["max_tokens"] == 1 and not sent.get("stream")
    assert sent["messages"] == context
    assert fake.headers[-1]["authorization"] == "Bearer session-key"


def test_only_the_newest_context_is_read_when_several_arrive(fake):
    fake.answer_delay = 0.3
    warmer = PrefixWarmer()
    target = local_target(fake)
    for n in range(4):
        warmer.start(target, [{"role": "user", "content": f"context {n}"}])
    assert warmer.wait(10)
    contents = [r["messages"][0]["content"] for r in fake.requests]
    assert contents[0] == "context 0" and contents[-1] == "context 3" and len(contents) <= 2


def test_a_hosted_model_is_never_read_ahead(fake):
    warmer = PrefixWarmer()
    hosted = ModelTarget(name="fake", litellm_model="openai/fake-model", window=8192, api_base=fake.base_url)
    warmer.start(hosted, [{"role": "user", "content": "hi"}])
    assert not warmer.running and fake.requests == []


def test_what_the_server_has_not_read_starts_at_the_first_difference():
    from foldchat.engine.local.prefix_warm import read_seconds, unread_from

    read = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert unread_from(read, [*read, {"role": "user", "content": "c"}]) == 2  # only the new message
    assert unread_from(read, [{"role": "user", "content": "<snapshot>"}, *read]) == 0  # a fold: all of it
    assert unread_from([], read) == 0
    assert 20 <= read_seconds(4096, "smollm2", 2) <= 25  # as measured: 4k tokens in 23 s on two cores


def test_ask_says_before_a_long_read_that_the_local_model_reads_the_context_first(tmp_path, monkeypatch):
    """45-61 s of silence before the first word after a resume: the wait is now said before it starts."""
    import json
    import os
    import subprocess
    import sys

    from foldchat.engine.config import LocalModelSettings
    from foldchat.engine.local.model import ensure_gguf

    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    env = {**os.environ, "FOLDCHAT_CONFIG": os.devnull, "FOLDCHAT_DATABASE": str(tmp_path / "db.sqlite"),
           "FOLDCHAT_LOCAL__MODEL_PATH": str(ensure_gguf(LocalModelSettings())),
           "FOLDCHAT_LOCAL__MAX_REPLY_TOKENS": "8", "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    history = []
    for n in range(12):  # ~2,000 tokens: a resumed conversation
        history += [{"role": "user", "content": f"Day {n}: we walk from the hostel to viewpoint {n} and eat at "
                     "the tasca with the green door, then take tram 28 back before the evening rush. " * 2},
                    {"role": "assistant", "content": "Noted. " * 30}]  # fmt: skip
    (tmp_path / "old.json").write_text(json.dumps(history))
    run = [sys.executable, "-m", "foldchat"]
    assert subprocess.run([*run, "import", str(tmp_path / "old.json")], env=env, capture_output=True).returncode == 0
    done = subprocess.run([*run, "ask", "-c", "1", "and tomorrow?"], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = next(line for line in done.stderr.splitlines() if "reads" in line)
    assert said.startswith("foldchat: the local model reads ") and "tokens of context first, about" in said


def test_a_send_to_another_model_never_waits_for_the_local_read(fake, tmp_path, monkeypatch):
    """A resumed conversation switched to a hosted model waited 62 s for the local model's read-ahead."""
    import asyncio
    import time

    from foldchat.engine.providers.events import Finished, Waiting
    from test_session_folds import open_session

    slow_local = type(fake)().start()
    slow_local.answer_delay = 30  # a read-ahead that takes half a minute
    try:
        with open_session(fake, tmp_path, monkeypatch, 16_000) as session:
            session.add_user_message("where were we?")
            hosted = session.target
            session.target = local_target(slow_local)
            session.read_ahead()
            assert session.warmer.running and session.warmer.reading_for(session.target)
            session.switch_model(hosted)
            assert not session.warmer.reading_for(session.target)

            async def reply() -> list[object]:
                return [event async for event in session.reply()]

            started = time.monotonic()
            events = asyncio.run(reply())
            assert time.monotonic() - started < 10
            assert not any(isinstance(e, Waiting) for e in events)
            assert isinstance(events[-1], Finished)
    finally:
        slow_local.stop()


def test_a_send_to_the_local_model_goes_after_its_own_read(fake):
    warmer = PrefixWarmer()
    fake.answer_delay = 0.5
    target = local_target(fake)
    warmer.start(target, [{"role": "user", "content": "hi"}])
    assert warmer.reading_for(target)
    other = local_target(type(fake)())  # another server (not started): no wait for it
    assert not warmer.reading_for(other)
    assert warmer.wait(10) and not warmer.reading_for(target)
