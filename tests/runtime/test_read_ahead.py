"""Reading a changed context ahead on the local model (DESIGN §10): one request for one token of the
new context, in the background, the newest context winning, and a reply that goes after it."""

from __future__ import annotations

from foldchat.engine.prefix_warm import PrefixWarmer
from foldchat.engine.providers import ModelTarget


def local_target(fake) -> ModelTarget:
    return ModelTarget(
        name="local", litellm_model="openai/foldchat-local", window=8192, api_base=fake.base_url,
        max_output_tokens=512, is_local=True, temperature=0.7, api_key="session-key",
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
