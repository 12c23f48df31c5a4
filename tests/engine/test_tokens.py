"""tokens.py: per-message counts cached per tokenizer, additive request counts, model windows."""

import pytest
from foldchat.engine import Message
from foldchat.engine.errors import UnknownModel
from foldchat.engine.tokens import REPLY_PRIMING_TOKENS, LiteLLMCounter, TextCounter, model_info


def counting_words() -> tuple[TextCounter, list[str]]:
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text.split())

    return TextCounter("words", count, per_message=4), seen


def test_a_message_is_counted_once_then_served_from_the_cache():
    counter, seen = counting_words()
    message = Message.user("three little words")
    assert counter.count_message(message) == 4 + len(["user:", "three", "little", "words"])
    counter.count_message(Message.user("three little words"))  # an equal message: same cache entry
    assert len(seen) == 1


def test_a_request_costs_the_sum_of_its_messages_plus_the_reply_priming():
    counter, _ = counting_words()
    messages = [Message.system("be brief"), Message.user("hi there"), Message.assistant("hello")]
    assert counter.count(messages) == sum(map(counter.count_message, messages)) + REPLY_PRIMING_TOKENS
    assert counter.count([]) == 0
    assert counter.count_text("") == 0


def test_litellm_counts_match_litellm_for_a_whole_request():
    import litellm

    counter = LiteLLMCounter("gpt-4o")
    messages = [Message.system("You are terse."), Message.user("Count these tokens, please: PAY-7, 2024-05-01.")]
    expected = litellm.token_counter(model="gpt-4o", messages=[m.to_dict() for m in messages])
    assert counter.count(messages) == expected
    assert counter.count_text("hello world") == 2


def test_model_info_reads_litellm_and_honours_an_override():
    info = model_info("gpt-4o")
    assert info.window >= 128_000 and info.input_cost_per_token > 0
    assert model_info("gpt-4o", window_override=5000).window == 5000


def test_an_unknown_model_needs_a_window():
    with pytest.raises(UnknownModel, match="context-window"):
        model_info("nobody/knows-this-model")
    assert model_info("nobody/knows-this-model", window_override=4096).window == 4096


def test_text_being_typed_is_counted_but_never_cached():
    counter, seen = counting_words()
    typed = [Message.user("draft " * n) for n in range(1, 51)]  # every composer state is a new message
    assert [counter.count_uncached(m) for m in typed] == [counter._count_one(m) for m in typed]
    assert len(counter._cache) == 0
    history = Message.user("already sent")
    counter.count_message(history)
    calls = len(seen)
    assert counter.count_uncached(history) == counter.count_message(history) and len(seen) == calls  # served


def test_the_cache_keeps_the_most_recently_used_counts_up_to_its_bound():
    counter = TextCounter("words", lambda text: len(text.split()), per_message=4)
    counter._max_entries = 3
    a, b, c, d = (Message.user(text) for text in ("a", "b", "c", "d"))
    for message in (a, b, c, a, d):  # `a` used again, so `b` is the oldest when `d` arrives
        counter.count_message(message)
    assert list(counter._cache) == [c, a, d]
