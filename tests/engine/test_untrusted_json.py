"""JSON and numbers we did not write never raise: deep nesting, huge integers and broken text in tool
calls, recall arguments and a summarizer's answer are data, through import, fold, recall and summarizer."""

from __future__ import annotations

import contextlib
import json

import pytest
from foldchat.engine import untrusted_json
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, ToolCall, parse_messages
from foldchat.engine.providers.adapt import json_object_arguments
from foldchat.engine.recall import Original, answer_tool_call
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.summarizers.llm import SummarizerFailed, parse_snapshot
from foldchat.engine.tokens import LiteLLMCounter
from hypothesis import given, settings, strategies as st

DEEP = "[" * 1000 + "]" * 1000
HUGE = "9" * 4300
NASTY = [DEEP, '{"a": ' + DEEP + "}", '{"message": ' + HUGE + "}", '{"message": "²"}', '{"message": "' + HUGE + '"}',
         "{" * 5000, '{"query": "x", "offset": ' + HUGE + "}", "\ud800", '{"a": 1e999999}',
         '{"message": ' + "9" * 5000 + "}", '{"a": NaN}', '{"a": -Infinity}', '{"q": "\\ud800"}']  # fmt: skip
JSONISH = st.one_of(
    st.sampled_from(NASTY),
    st.text(alphabet=st.sampled_from(list('[]{}",:0123456789-e.\\ab²')), max_size=300),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=6000).map(lambda n: '{"message": ' + "7" * n + "}"),
)


@settings(max_examples=150, deadline=None)
@given(JSONISH)
def test_reading_never_raises(text):
    value = untrusted_json.loads(text)
    assert value is None or json.dumps(value) is not None
    assert untrusted_json.integer(text) is None or len(text.strip().lstrip("#")) <= untrusted_json.MAX_DIGITS
    json_object_arguments(text)  # always an object, never an exception


@settings(max_examples=200, deadline=None)
@given(JSONISH)
def test_adapted_arguments_are_an_object_that_a_strict_reader_and_writer_take(text):
    """litellm's Anthropic adapter reads stored arguments with json.loads and the request is written with
    allow_nan off: a 5,000-digit integer, NaN or 1e999 stopped every later send of the conversation."""
    readable = json.loads(json_object_arguments(text))
    assert isinstance(readable, dict)
    json.dumps(readable, allow_nan=False, ensure_ascii=False).encode("utf-8")


def test_arguments_a_reader_takes_are_sent_as_the_model_wrote_them_and_others_keep_their_digits():
    assert json_object_arguments('{"query":  "ferry" }') == '{"query":  "ferry" }'
    assert json.loads(json_object_arguments('{"message": ' + "9" * 5000 + "}")) == {"message": "9" * 5000}
    assert json.loads(json_object_arguments('{"a": NaN, "b": 1e999, "c": 2.5}')) == {"a": "NaN", "b": "1e999", "c": 2.5}
    assert json.loads(json_object_arguments('{"q": "\\ud800 x"}')) == {"q": "\ufffd x"}


@settings(max_examples=60, deadline=None)
@given(JSONISH)
def test_recall_answers_any_arguments_with_text(text):
    originals = [Original(3, Message.user("the charity race raised awareness"))]
    answer = answer_tool_call(ToolCall("c1", "recall", text), originals)
    assert isinstance(answer, str) and answer


@settings(max_examples=40, deadline=None)
@given(JSONISH)
def test_a_summarizers_answer_that_is_not_readable_fails_as_a_summarizer_failure(text):
    with contextlib.suppress(SummarizerFailed):  # that, or a snapshot: never another exception
        parse_snapshot(text)


@pytest.mark.parametrize("arguments", NASTY)
def test_a_conversation_holding_poisoned_tool_calls_still_folds(arguments):
    raw = []
    for n in range(12):
        raw += [
            {"role": "user", "content": f"step {n}: run the report " + "with the numbers " * 40},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": "ok " * 50},
            {"role": "assistant", "content": f"Done with step {n}."},
        ]  # fmt: skip
    request = FoldRequest(LiteLLMCounter("gpt-4o"), 4_000, RulesSummarizer(), force=True)
    result = fold_context(parse_messages(raw), request)
    assert result.report.compressed


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3))
)
def test_what_json_decodes_from_any_text_can_be_written_as_utf8(value):
    # json.dumps escapes lone surrogates as \udXXX; reading them back must not yield unencodable text
    decoded = untrusted_json.loads(json.dumps(value))
    json.dumps(decoded, ensure_ascii=False).encode("utf-8")
