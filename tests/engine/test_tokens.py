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


# -- the direct tiktoken path (no litellm import) must give exactly litellm's counts --

from foldchat.engine.tokens import DirectCounter, counter_for, covered_by_tiktoken  # noqa: E402
from hypothesis import (  # noqa: E402
    HealthCheck,
    given,
    settings,
    strategies as st,
)

COVERED = ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4", "gpt-3.5-turbo", "o3-mini"]
_words = st.sampled_from(["<|endoftext|>", " ", "\n", "é", "日本", "PAY-1234", "  ", '{"a": 1}'])
_text = st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | _words, max_size=8
).map("".join) | st.sampled_from(["", "x" * 3000, "ab " * 700, "def f():\n    return 1\n" * 80])
_part = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _text),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, st.sampled_from(["https://x.test/a.png"])),
)
_call = st.builds(
    lambda i, n, a: {"id": i, "type": "function", "function": {"name": n, "arguments": a}},
    st.text("abc123_", min_size=1, max_size=12),
    st.text("abcdef_", min_size=1, max_size=10),
    _text,
)
_message = st.one_of(
    st.builds(lambda t, n: {"role": "user", "content": t, **({"name": n} if n else {})}, _text, st.none() | _text),
    st.builds(lambda ps: {"role": "user", "content": ps}, st.lists(_part, min_size=1, max_size=3)),
    st.builds(lambda t: {"role": "system", "content": t}, _text),
    st.builds(
        lambda t, calls, r: {
            "role": "assistant",
            "content": t,
            "tool_calls": calls,
            **({"reasoning_content": r} if r else {}),
        },
        st.none() | _text,
        st.lists(_call, max_size=3, unique_by=lambda c: c["id"]),
        st.none() | _text,
    ),
    st.builds(lambda i, t, n: {"role": "tool", "tool_call_id": i, "name": n, "content": t}, _text, _text, _text),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=st.sampled_from(COVERED), history=st.lists(_message, min_size=1, max_size=6))
def test_direct_counts_equal_litellm_token_counter(model, history):
    import litellm
    from foldchat.engine.messages import parse_messages

    messages = parse_messages(history)
    direct = counter_for(model)
    assert isinstance(direct, DirectCounter)
    expected = litellm.token_counter(
        model=model, messages=[m.to_dict() for m in messages], use_default_image_token_count=True
    )
    assert direct.count(messages) == expected
    for message in messages:
        assert direct.count_message(message) == LiteLLMCounter(model).count_message(message)
    text = "".join(m.text for m in messages)
    assert direct.count_text(text) == (litellm.token_counter(model=model, text=text) if text else 0)


def test_models_outside_the_openai_family_fall_back_to_litellm():
    for model in ["anthropic/claude-3-5-haiku-latest", "claude-2.1", "gemini/gemini-2.0-flash", "gpt-3.5-turbo-0301",
                  "openai/gpt-4o", "no-such-model", "ft:gpt-4o-mini:acme"]:  # fmt: skip
        assert not covered_by_tiktoken(model)
        assert isinstance(counter_for(model), LiteLLMCounter)


def test_windows_and_prices_read_as_data_equal_litellm_model_info():
    import litellm

    for model in COVERED:
        raw = litellm.get_model_info(model)
        info = model_info(model)
        assert info.window == (raw.get("max_input_tokens") or raw.get("max_tokens"))
        assert info.max_output_tokens == raw.get("max_output_tokens")
        assert info.input_cost_per_token == float(raw.get("input_cost_per_token") or 0.0)
        assert info.output_cost_per_token == float(raw.get("output_cost_per_token") or 0.0)


def test_the_direct_counter_does_not_import_litellm():
    import subprocess
    import sys

    code = (
        "import sys\nfrom foldchat.engine.tokens import counter_for, model_info\n"
        "from foldchat.engine.messages import Message\n"
        "c = counter_for('gpt-4o'); c.count([Message.user('hi')]); model_info('gpt-4o')\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_kept_encodings_are_private_and_encode_as_tiktoken_does(tmp_path, monkeypatch):
    import os

    import tiktoken
    from foldchat.engine import encodings
    from foldchat.engine.tokens import litellm_package_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = litellm_package_dir() / "litellm_core_utils" / "tokenizers"
    previous = os.umask(0o022)
    try:
        first = encodings._encoding.__wrapped__("cl100k_base", str(folder))  # builds and keeps the ranks
        kept = encodings._path("cl100k_base")
        assert kept.is_file() and os.stat(kept).st_mode & 0o777 == 0o600
        second = encodings._encoding.__wrapped__("cl100k_base", str(folder))  # read back from the kept file
    finally:
        os.umask(previous)
    text = "Fix PAY-1234 in src/app.py <|endoftext|> 日本語 " * 5
    reference = tiktoken.get_encoding("cl100k_base")
    assert first.encode_ordinary(text) == second.encode_ordinary(text) == reference.encode_ordinary(text)
    kept.write_bytes(b"not marshal data")  # a damaged file is rebuilt, never trusted
    assert encodings._encoding.__wrapped__("cl100k_base", str(folder)).encode_ordinary(
        text
    ) == reference.encode_ordinary(text)
