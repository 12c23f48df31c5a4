"""The fake providers' prompt caches, seen as the app sees them: real requests through litellm.

Where litellm puts each number after a stream (the last chunk carrying `usage` with
`stream_options={"include_usage": True}`, and `stream_chunk_builder`'s usage, which agree):

- Anthropic: `usage.prompt_tokens` is input + cache read + cache write (litellm adds them up);
  `usage.cache_read_input_tokens` and `usage.prompt_tokens_details.cached_tokens` are the read;
  `usage.cache_creation_input_tokens`, `usage.prompt_tokens_details.cache_creation_tokens` (and
  `.cache_write_tokens`) are the write, split by ttl in `prompt_tokens_details.cache_creation_token_details`
  (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`); `prompt_tokens_details.text_tokens` is the
  uncached input_tokens.
- OpenAI: `usage.prompt_tokens` is the whole prompt, `usage.prompt_tokens_details.cached_tokens` the part
  read from the cache (no `cache_read_input_tokens` attribute at all), and
  `usage.completion_tokens_details.reasoning_tokens` the reasoning, counted in `completion_tokens`.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import litellm
import pytest

from servers.fake_anthropic import FakeAnthropic, approx_tokens, prompt_tokens
from servers.fake_openai import FakeOpenAI, prompt_units

MARK = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
LONG = "You are a careful assistant: answer in full sentences and say when you are unsure. " * 80
"""A system prompt of ~1,700 approximate tokens: past both providers' 1024-token minimum."""


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()
    yield server
    server.stop()


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    server.approximate_usage = True
    yield server
    server.stop()


class Clock:
    """A clock a test moves by hand (`server.clock = clock`)."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += minutes * 60


def streamed_usage(server: FakeAnthropic | FakeOpenAI, model: str, messages: list[Any], **extra: Any) -> Any:
    """The usage litellm parsed from a streamed reply: the last chunk's, checked against what
    `stream_chunk_builder` rebuilds from all of them."""
    chunks = list(
        litellm.completion(
            model=model, api_base=server.base_url, api_key="sk-test", messages=messages, stream=True,
            stream_options={"include_usage": True}, **extra,
        )
    )  # fmt: skip
    final = [chunk.usage for chunk in chunks if getattr(chunk, "usage", None) is not None][-1]
    built = litellm.stream_chunk_builder(chunks).usage
    for name in ("prompt_tokens", "completion_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        assert getattr(built, name, None) == getattr(final, name, None), name
    assert built.prompt_tokens_details.cached_tokens == final.prompt_tokens_details.cached_tokens
    return final


def ask_anthropic(server: FakeAnthropic, messages: list[Any], **extra: Any) -> Any:
    return streamed_usage(server, "anthropic/claude-sonnet-4-5", messages, **extra)


def ask_openai(server: FakeOpenAI, messages: list[Any], **extra: Any) -> Any:
    return streamed_usage(server, "openai/gpt-4o", messages, **extra)


def system(text: str = LONG, mark: dict[str, str] | None = MARK) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if mark is not None:
        block["cache_control"] = mark
    return {"role": "system", "content": [block]}


def user(text: str, mark: dict[str, str] | None = None) -> dict[str, Any]:
    if mark is None:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [{"type": "text", "text": text, "cache_control": mark}]}


def system_tokens(body: dict[str, Any]) -> int:
    return sum(approx_tokens(block) for block in body["system"])


# Anthropic


def test_a_second_identical_request_reads_what_the_first_wrote(anthropic: FakeAnthropic) -> None:
    messages = [system(), user("What is a fold?")]
    first = ask_anthropic(anthropic, messages)
    body = anthropic.requests[-1]
    total, cached_part = prompt_tokens(body), system_tokens(body)
    assert 1024 <= cached_part < total
    assert anthropic.usages[-1] == {
        "input_tokens": total - cached_part, "cache_creation_input_tokens": cached_part,
        "cache_read_input_tokens": 0, "output_tokens": 12,
        "cache_creation": {"ephemeral_5m_input_tokens": cached_part, "ephemeral_1h_input_tokens": 0},
    }  # fmt: skip
    assert (first.prompt_tokens, first.cache_creation_input_tokens, first.cache_read_input_tokens) == (
        total,
        cached_part,
        0,
    )
    assert first.prompt_tokens_details.cache_creation_tokens == cached_part
    assert first.prompt_tokens_details.cached_tokens == 0
    assert first.prompt_tokens_details.text_tokens == total - cached_part
    assert first.completion_tokens == 12

    second = ask_anthropic(anthropic, messages)
    assert anthropic.usages[-1]["cache_read_input_tokens"] == cached_part
    assert anthropic.usages[-1]["cache_creation_input_tokens"] == 0
    assert (second.prompt_tokens, second.cache_creation_input_tokens, second.cache_read_input_tokens) == (
        total,
        0,
        cached_part,
    )
    assert second.prompt_tokens_details.cached_tokens == cached_part
    assert second.prompt_tokens_details.text_tokens == total - cached_part


def test_the_three_counts_always_add_up_to_the_prompt(anthropic: FakeAnthropic) -> None:
    for messages in (
        [system(), user("one", MARK)],
        [system(), user("one"), {"role": "assistant", "content": "two"}, user("three", MARK)],
        [system(mark=None), user("short")],
    ):
        ask_anthropic(anthropic, messages)
        usage = anthropic.usages[-1]
        parts = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
        assert parts == prompt_tokens(anthropic.requests[-1])


def test_a_growing_conversation_reads_the_last_turn_through_the_lookback(anthropic: FakeAnthropic) -> None:
    """The mark moves to the newest message each turn: the prefix the previous turn wrote (at a block
    that carries no mark any more) is found within the 20 blocks before the new mark."""
    turn = [system(), user("What is a fold?", MARK)]
    ask_anthropic(anthropic, turn)
    written = anthropic.usages[-1]["cache_creation_input_tokens"]
    assert written == prompt_tokens(anthropic.requests[-1])

    grown = [system(), user("What is a fold?"), {"role": "assistant", "content": "A summary."}, user("More?", MARK)]
    usage = ask_anthropic(anthropic, grown)
    total = prompt_tokens(anthropic.requests[-1])
    assert usage.cache_read_input_tokens == written
    assert usage.cache_creation_input_tokens == total - written
    assert anthropic.usages[-1]["input_tokens"] == 0


def test_five_marks_are_refused_with_the_real_message(anthropic: FakeAnthropic) -> None:
    messages = [
        {"role": "system", "content": [{"type": "text", "text": "a", "cache_control": MARK},
                                       {"type": "text", "text": "b", "cache_control": MARK}]},
        user("one", MARK), {"role": "assistant", "content": [{"type": "text", "text": "two", "cache_control": MARK}]},
        user("three", MARK),
    ]  # fmt: skip
    with pytest.raises(
        litellm.BadRequestError, match=r"A maximum of 4 blocks with cache_control may be provided\. Found 5\."
    ):
        ask_anthropic(anthropic, messages)
    assert anthropic.rejected == ["A maximum of 4 blocks with cache_control may be provided. Found 5."]
    assert anthropic.usages == [] and anthropic.cache == {}


def test_four_marks_are_fine(anthropic: FakeAnthropic) -> None:
    messages = [system(), user("one", MARK), {"role": "assistant", "content": "two"}, user("three", MARK)]
    tools = [{"type": "function", "function": {"name": "recall", "parameters": {"type": "object", "properties": {}}},
              "cache_control": MARK}]  # fmt: skip
    ask_anthropic(anthropic, messages, tools=tools)
    body = anthropic.requests[-1]
    assert sum("cache_control" in block for block in body["tools"] + body["system"]) == 2
    assert anthropic.rejected == []


def test_after_six_minutes_the_prefix_is_written_again(anthropic: FakeAnthropic) -> None:
    clock = Clock()
    anthropic.clock = clock
    messages = [system(), user("What is a fold?")]
    ask_anthropic(anthropic, messages)
    cached_part = system_tokens(anthropic.requests[-1])
    clock.advance(6)
    usage = ask_anthropic(anthropic, messages)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (cached_part, 0)


def test_a_read_restarts_the_five_minutes(anthropic: FakeAnthropic) -> None:
    clock = Clock()
    anthropic.clock = clock
    messages = [system(), user("What is a fold?")]
    ask_anthropic(anthropic, messages)
    cached_part = system_tokens(anthropic.requests[-1])
    for _ in range(3):
        clock.advance(4)
        usage = ask_anthropic(anthropic, messages)
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, cached_part)


def test_an_hour_mark_outlives_five_minutes_and_is_reported_apart(anthropic: FakeAnthropic) -> None:
    clock = Clock()
    anthropic.clock = clock
    messages = [system(mark=HOUR), user("What is a fold?")]
    first = ask_anthropic(anthropic, messages)
    cached_part = system_tokens(anthropic.requests[-1])
    assert anthropic.usages[-1]["cache_creation"] == {
        "ephemeral_5m_input_tokens": 0,
        "ephemeral_1h_input_tokens": cached_part,
    }
    details = first.prompt_tokens_details.cache_creation_token_details
    assert (details.ephemeral_5m_input_tokens, details.ephemeral_1h_input_tokens) == (0, cached_part)
    clock.advance(30)
    assert ask_anthropic(anthropic, messages).cache_read_input_tokens == cached_part
    clock.advance(61)
    assert ask_anthropic(anthropic, messages).cache_creation_input_tokens == cached_part


def test_a_prefix_under_1024_tokens_is_never_cached(anthropic: FakeAnthropic) -> None:
    messages = [system("Be brief."), user("hello", MARK)]
    for _ in range(2):
        usage = ask_anthropic(anthropic, messages)
        total = prompt_tokens(anthropic.requests[-1])
        assert total < 1024
        assert (usage.prompt_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (total, 0, 0)
        assert anthropic.usages[-1]["input_tokens"] == total


def test_other_tools_are_another_prefix(anthropic: FakeAnthropic) -> None:
    """Tools come first in the prefix: changing them misses the cached system prompt."""
    messages = [system(), user("What is a fold?")]

    def tools(name: str) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}]

    ask_anthropic(anthropic, messages, tools=tools("recall"))
    assert ask_anthropic(anthropic, messages, tools=tools("recall")).cache_read_input_tokens > 0
    usage = ask_anthropic(anthropic, messages, tools=tools("search"))
    assert usage.cache_read_input_tokens == 0 and usage.cache_creation_input_tokens > 0


def test_a_top_level_mark_caches_up_to_the_last_block(anthropic: FakeAnthropic) -> None:
    messages = [system(mark=None), user("What is a fold?")]
    ask_anthropic(anthropic, messages, cache_control=MARK)
    assert anthropic.requests[-1].get("cache_control") == MARK
    total = prompt_tokens(anthropic.requests[-1])
    assert anthropic.usages[-1]["cache_creation_input_tokens"] == total
    assert ask_anthropic(anthropic, messages, cache_control=MARK).cache_read_input_tokens == total


def post(server: FakeAnthropic, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        server.base_url + "/v1/messages", json.dumps(body).encode(), {"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {}
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize(
    ("content", "system_blocks", "message"),
    [
        ([{"type": "text", "text": "", "cache_control": MARK}, {"type": "text", "text": "hi"}], None,
         "messages.0.content.0.text: cache_control cannot be set for empty text blocks"),
        ([{"type": "text", "text": "hi", "cache_control": {"type": "persistent"}}], None,
         "messages.0.content.0.cache_control.type: Input should be 'ephemeral'"),
        ([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "10m"}}], None,
         "messages.0.content.0.cache_control.ttl: Input should be '5m' or '1h'"),
        ([{"type": "text", "text": "hi", "cache_control": HOUR}], [{"type": "text", "text": "s", "cache_control": MARK}],
         "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' "
         "cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`."),
    ],
)  # fmt: skip
def test_marks_the_api_refuses(
    anthropic: FakeAnthropic, content: list[Any], system_blocks: list[Any] | None, message: str
) -> None:
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 10, "stream": True,
                            "messages": [{"role": "user", "content": content}]}  # fmt: skip
    if system_blocks is not None:
        body["system"] = system_blocks
    assert post(anthropic, body) == (
        400,
        {"type": "error", "error": {"type": "invalid_request_error", "message": message}},
    )
    assert anthropic.rejected == [message]


def test_a_marked_thinking_block_is_refused(anthropic: FakeAnthropic) -> None:
    anthropic.issued.add("sig-known")
    thinking = {"type": "thinking", "thinking": "Hm.", "signature": "sig-known", "cache_control": MARK}
    body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "stream": True, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "Hello."}]},
        {"role": "user", "content": "again"},
    ]}  # fmt: skip
    status, error = post(anthropic, body)
    assert status == 400
    assert error["error"]["message"] == "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"


def test_an_hour_before_five_minutes_is_fine(anthropic: FakeAnthropic) -> None:
    ask_anthropic(anthropic, [system(mark=HOUR), user("hello", MARK)])
    assert anthropic.rejected == []


# OpenAI


def openai_tokens(body: dict[str, Any], units: int | None = None) -> int:
    return sum(len(unit) // 4 for unit in prompt_units(body)[:units])


def test_openai_reports_the_shared_prefix_in_steps_of_128(openai: FakeOpenAI) -> None:
    messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "What is a fold?"}]
    first = ask_openai(openai, messages)
    total = openai_tokens(openai.requests[-1])
    assert (first.prompt_tokens, first.prompt_tokens_details.cached_tokens) == (total, 0)
    assert openai.usages[-1]["prompt_tokens_details"] == {"cached_tokens": 0, "audio_tokens": 0}

    second = ask_openai(openai, messages)
    cached = second.prompt_tokens_details.cached_tokens
    assert cached == total // 128 * 128 and cached % 128 == 0 and cached >= 1024
    assert second.prompt_tokens == total
    assert openai.usages[-1]["prompt_tokens_details"]["cached_tokens"] == cached
    assert getattr(second, "cache_read_input_tokens", None) is None

    grown = [*messages, {"role": "assistant", "content": "A summary."}, {"role": "user", "content": "More?"}]
    third = ask_openai(openai, grown)
    assert third.prompt_tokens == openai_tokens(openai.requests[-1])
    assert third.prompt_tokens_details.cached_tokens == openai_tokens(openai.requests[-1], 2) // 128 * 128


def test_openai_caches_nothing_under_1024_tokens(openai: FakeOpenAI) -> None:
    messages = [{"role": "system", "content": LONG[:3000]}, {"role": "user", "content": "hello"}]
    ask_openai(openai, messages)
    usage = ask_openai(openai, messages)
    assert 128 < usage.prompt_tokens < 1024
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_openai_forgets_after_five_minutes(openai: FakeOpenAI) -> None:
    clock = Clock()
    openai.clock = clock
    messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "What is a fold?"}]
    ask_openai(openai, messages)
    clock.advance(4)
    assert ask_openai(openai, messages).prompt_tokens_details.cached_tokens >= 1024
    clock.advance(6)
    assert ask_openai(openai, messages).prompt_tokens_details.cached_tokens == 0


def test_openai_other_models_and_a_changed_first_message_share_nothing(openai: FakeOpenAI) -> None:
    messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "What is a fold?"}]
    ask_openai(openai, messages)
    assert streamed_usage(openai, "openai/gpt-4.1", messages).prompt_tokens_details.cached_tokens == 0
    changed = [{"role": "system", "content": "Today is Monday. " + LONG}, messages[1]]
    assert ask_openai(openai, changed).prompt_tokens_details.cached_tokens == 0


def test_openai_reasoning_tokens_and_a_non_streamed_answer(openai: FakeOpenAI) -> None:
    openai.reasoning_tokens = 40
    messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "What is a fold?"}]
    ask_openai(openai, messages)
    response = litellm.completion(model="openai/gpt-4o", api_base=openai.base_url, api_key="sk-test", messages=messages)
    usage = response.usage
    assert usage.prompt_tokens_details.cached_tokens == openai_tokens(openai.requests[-1]) // 128 * 128
    assert usage.completion_tokens_details.reasoning_tokens == 40
    assert usage.completion_tokens == 7 + 40


def test_openai_default_usage_is_what_it_always_was() -> None:
    server = FakeOpenAI().start()
    try:
        messages = [{"role": "system", "content": LONG}, {"role": "user", "content": "What is a fold?"}]
        ask_openai(server, messages)
        usage = ask_openai(server, messages)
        words = len(server.reply.split(" "))
        assert (usage.prompt_tokens, usage.completion_tokens) == (11, words)
        assert usage.prompt_tokens_details.cached_tokens == 0
        assert usage.completion_tokens_details.reasoning_tokens == 0
    finally:
        server.stop()
