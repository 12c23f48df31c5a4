import json
from collections.abc import Sequence

import litellm
import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.errors import CurrentTurnTooLarge
from foldchat.engine.events import FoldCompleted, FoldProgress, FoldStarted
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.invariants import violations
from foldchat.engine.messages import Message, dump_messages, parse_messages
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers import RulesSummarizer, SummaryRequest
from foldchat.engine.tokens import LiteLLMCounter

from synth import coding_conversation

MODEL = "gpt-4o"


def request(window, **kw):
    return FoldRequest(counter=LiteLLMCounter(MODEL), window=window, summarizer=RulesSummarizer(), **kw)


@pytest.fixture(scope="module")
def coding100k():
    raw, facts = coding_conversation(100_000)
    return parse_messages(raw), facts


def test_100k_coding_conversation_folds_below_35_percent_keeping_user_facts(coding100k):
    messages, facts = coding100k
    result = fold_context(messages, request(100_000, force=True, reserved_output=4096))
    r = result.report
    assert r.compressed and r.tokens_after <= 0.35 * r.tokens_before
    text = json.dumps(dump_messages(result.messages), ensure_ascii=False)
    assert [f for f in facts if f not in text] == []
    assert violations(result.messages, [messages[0]]) == []


def test_reported_counts_match_litellm(coding100k):
    messages, _ = coding100k
    result = fold_context(messages, request(100_000, force=True))
    out = dump_messages(result.messages)
    assert result.report.tokens_after == litellm.token_counter(model=MODEL, messages=out)
    assert result.report.tokens_before == litellm.token_counter(model=MODEL, messages=dump_messages(messages))


def test_automatic_fold_lands_at_or_below_target(coding100k):
    messages, _ = coding100k
    result = fold_context(messages, request(128_000, reserved_output=4096))
    r = result.report
    assert r.compressed and r.trigger == "auto"
    assert r.tokens_after + r.reserved_output <= r.target_tokens < r.trigger_tokens


def test_below_trigger_nothing_changes(coding100k):
    messages, _ = coding100k
    result = fold_context(messages, request(1_000_000))
    assert not result.report.compressed and result.messages == messages


def test_refolding_merges_the_old_snapshot_into_exactly_one(coding100k):
    messages, facts = coding100k
    first = fold_context(messages, request(100_000, force=True)).messages
    longer = [*first, Message.assistant("Release notes drafted."), Message.user("And ship INV-4242 too.")]
    second = fold_context(longer, request(100_000, force=True))
    texts = [m.text for m in second.messages]
    assert sum(t.count(snap.SNAPSHOT_OPEN) for t in texts) == 1
    s = snap.parse(second.messages[1].text)
    assert s is not None and s.depth == 2
    joined = "\n".join(texts)
    assert [f for f in facts if f not in joined] == []


def test_events_report_each_step(coding100k):
    messages, _ = coding100k
    events = []
    fold_context(messages, request(100_000, force=True, on_event=events.append))
    assert isinstance(events[0], FoldStarted) and isinstance(events[-1], FoldCompleted)
    steps = {e.step for e in events if isinstance(e, FoldProgress)}
    assert {"split", "summarize", "rebuild"} <= steps


def test_current_turn_too_large_is_an_error_not_a_cut():
    messages = [Message.user("hi"), Message.assistant("hello"), Message.user("word " * 5000)]
    with pytest.raises(CurrentTurnTooLarge, match=r"current user message .* alone need"):
        fold_context(messages, request(2000, force=True))


def test_oversized_tool_output_outside_the_current_turn_is_condensed():
    big = "\n".join(f"line {n}: value" for n in range(4000)) + "\nRuntimeError: boom at src/x.py"
    raw = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "read it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": big},
        {"role": "assistant", "content": "read"},
        {"role": "user", "content": "now what?"},
    ]
    result = fold_context(parse_messages(raw), request(64_000, force=True))
    assert result.report.condensed_messages == (5,)  # 1-based message numbers
    assert violations(result.messages) == []


class TinyBudgetSummarizer(RulesSummarizer):
    """Rules, but taking tiny inputs, so chunking and consolidation levels are exercised."""

    input_budget = 2_000
    consolidations = 0

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        type(self).consolidations += 1
        return super().consolidate(parts, request)


def test_chunked_summary_with_consolidation_depth_guard(coding100k):
    messages, _ = coding100k
    result = fold_context(
        messages,
        FoldRequest(counter=LiteLLMCounter(MODEL), window=100_000, summarizer=TinyBudgetSummarizer(), force=True),
    )
    r = result.report
    assert r.chunks > 10 and 1 <= r.consolidation_depth <= 6
    assert TinyBudgetSummarizer.consolidations > 0
    assert violations(result.messages) == []


def test_pins_are_quoted_verbatim_and_counted(coding100k):
    messages, _ = coding100k
    pins = ["Deploy window: 2026-12-24 02:00 UTC", "Owner is Priya Raman"]
    result = fold_context(messages, request(100_000, force=True, pinned=pins))
    assert result.report.pinned_kept == (2, 2)
    assert snap.parse(result.messages[1].text).pinned == pins
