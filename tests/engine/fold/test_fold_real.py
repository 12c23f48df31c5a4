"""The fold on realistic conversations (agent turns, pasted snapshots, foreign shapes, numbers)."""

import json

import litellm
import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.errors import CurrentTurnTooLarge
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.fold.prune import is_pruned
from foldchat.engine.invariants import violations
from foldchat.engine.messages import Message, dump_messages, parse_messages
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter

from trajectories import (
    AGENT_REQUEST,
    agent_trajectory,
    everyday_chat,
    imported_compressed_history,
    readme_chat,
)

MODEL = "gpt-4o"


def request(window, **kw):
    return FoldRequest(counter=LiteLLMCounter(MODEL), window=window, summarizer=RulesSummarizer(), **kw)


@pytest.fixture(scope="module")
def trajectory():
    raw, facts = agent_trajectory(57_000)
    return parse_messages(raw), facts


# -- item 1: a long current turn folds inside itself --------------------------------------------------
def test_an_agent_trajectory_bigger_than_the_window_folds_inside_its_one_turn(trajectory):
    messages, facts = trajectory
    assert LiteLLMCounter(MODEL).count(messages) > 32_000
    result = fold_context(messages, request(32_000, reserved_output=1024))
    out, r = result.messages, result.report
    assert r.compressed and r.split_phase == 5 and violations(out, [messages[0]]) == []
    assert [m.role for m in out[:5]] == ["system", "user", "assistant", "user", "assistant"]
    assert snap.is_snapshot_message(out[1]) and out[3] == messages[1]  # the request, verbatim after the ack
    assert out[-2:] == messages[-2:]  # the newest exchange, verbatim
    assert r.tokens_after + r.reserved_output <= r.target_tokens
    assert [f for f in facts if f not in json.dumps(dump_messages(out))] == []


def test_with_a_big_window_the_automatic_fold_still_folds_the_turn(trajectory):
    messages, _ = trajectory
    result = fold_context(messages, request(64_000, reserved_output=1024))
    assert result.report.compressed, result.report.reason
    assert 0.35 * 64_000 <= result.report.tokens_after + 1024 <= 0.5 * 64_000


def test_only_the_user_message_and_newest_exchange_overflowing_is_refused():
    output = "\n".join(f"tests/export/test_csv_writer.py:{n}: AssertionError" for n in range(3000))
    raw = [
        {"role": "user", "content": AGENT_REQUEST},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest"}'}}
        ]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": output},
    ]  # fmt: skip
    with pytest.raises(CurrentTurnTooLarge, match=r"current user message \(.*\) and its newest exchange \(.*\)"):
        fold_context(parse_messages(raw), request(8_000))


# -- item 3: snapshot identity is a mark, never text ---------------------------------------------------
def test_a_pasted_readme_is_an_ordinary_message_and_its_request_survives_two_folds():
    raw, _facts = readme_chat(14)
    messages = parse_messages(raw)
    assert violations(messages) == []  # before: "2 snapshots" once a fold added ours
    first = fold_context(messages, request(16_000, force=True))
    assert first.report.compressed and violations(first.messages, [messages[0]]) == []
    longer = [*first.messages, Message.assistant("Noted."), Message.user("And BK-99999 for Girona, please.")]
    second = fold_context(longer, request(16_000, force=True))
    assert second.report.compressed and violations(second.messages, [messages[0]]) == []
    snapshots = [m for m in second.messages if snap.is_snapshot_message(m)]
    assert len(snapshots) == 1 and snapshots[0].text.count(snap.SNAPSHOT_OPEN) == 1
    parsed = snap.parse(snapshots[0].text)
    assert parsed is not None and parsed.depth == 2
    assert any("DOC-7788" in request for request in parsed.user_requests)
    # whatever of the pasted tags is quoted, it is inert: one opening and one closing tag, ours
    assert snapshots[0].text.count("<state_snapshot") == 1 and snapshots[0].text.count("</state_snapshot>") == 1


def test_compress_json_marks_its_snapshot_by_name_and_reads_it_back():
    raw, _ = readme_chat(14)
    out = fold_context(snap.mark_named_snapshots(parse_messages(raw)), request(16_000, force=True)).messages
    again = json.loads(json.dumps(dump_messages(snap.name_snapshots(out))))
    assert [m.get("name") for m in again].count(snap.SNAPSHOT_NAME) == 1
    reread = snap.mark_named_snapshots(parse_messages(again))
    assert sum(snap.is_snapshot_message(m) for m in reread) == 1 and violations(reread) == []


# -- item 5: near the target, previous turns kept --------------------------------------------------------
@pytest.mark.parametrize("turns", [30, 45, 60])
def test_an_automatic_fold_lands_between_35_and_50_percent_and_keeps_two_previous_turns(turns):
    raw, facts = everyday_chat(turns)
    messages = parse_messages(raw)
    tokens = LiteLLMCounter(MODEL).count(messages)
    window = int(tokens / 0.85)
    result = fold_context(messages, request(window, reserved_output=1024))
    r = result.report
    assert r.compressed and 0.35 * window <= r.tokens_after + r.reserved_output <= 0.5 * window
    users = [m for m in messages if m.role == "user"]
    assert all(u in result.messages for u in users[-3:])  # current turn + the two before it, verbatim
    assert [f for f in facts if f not in json.dumps(dump_messages(result.messages))] == []


# -- item 2: prune before summarize ------------------------------------------------------------------------
def test_pruning_old_tool_outputs_alone_can_reach_the_target():
    raw, _ = agent_trajectory(30_000)
    raw += [
        {"role": "assistant", "content": "The timezone fix is in; all export tests pass."},
        {"role": "user", "content": "Thanks. Now write the PR description for BILL-4127."},
        {"role": "assistant", "content": "Draft: Fix timezone loss in InvoiceExporter.to_csv (BILL-4127)."},
        {"role": "user", "content": "Shorter, and mention @marta.k."},
    ]
    messages = parse_messages(raw)
    window = int(LiteLLMCounter(MODEL).count(messages) / 0.82)
    result = fold_context(messages, request(window, reserved_output=512))
    r = result.report
    assert r.compressed and result.snapshot is None and r.reason == f"pruned {len(r.pruned_messages)} tool outputs"
    stubs = [m for m in result.messages if is_pruned(m)]
    assert len(stubs) == len(r.pruned_messages) > 0
    first = stubs[0]
    number = r.pruned_messages[0]
    assert f"transcript message #{number}" in first.text and raw[number - 1]["tool_call_id"] == first.tool_call_id
    assert "grep -rn 'issued_at'" in first.text  # what the tool did, from the tool-facts line
    assert r.tokens_after == litellm.token_counter(model=MODEL, messages=dump_messages(result.messages))
    assert r.tokens_after + r.reserved_output <= r.target_tokens


# -- item 6: foreign snapshots keep their sections ---------------------------------------------------------
def test_an_imported_gemini_style_snapshot_keeps_its_file_system_state():
    raw, facts = imported_compressed_history(14)
    result = fold_context(parse_messages(raw), request(16_000, force=True))
    assert result.report.compressed and result.snapshot is not None
    artifacts = "\n".join(result.snapshot.artifacts)
    assert "MODIFIED: dags/etl_nightly_v3.py (added retries=3)" in artifacts
    assert "READ: config/airflow/connections.yaml" in artifacts
    assert any("[TODO] Backfill 2026-01-01..2026-01-31" in t for t in result.snapshot.task_state)
    assert any("airflow.internal:8080" in k for k in result.snapshot.key_knowledge)
    assert [f for f in facts if f not in json.dumps(dump_messages(result.messages))] == []


# -- item 9: the conversation's own numbers -----------------------------------------------------------------
def test_covers_and_condensed_are_the_conversations_own_message_numbers():
    raw, _ = everyday_chat(20)
    messages = [Message.from_dict(m, key=1000 + i) for i, m in enumerate(raw)]  # database ids of a shared table
    numbers = {1000 + i: i + 1 for i in range(len(raw))}
    result = fold_context(messages, request(16_000, force=True, numbers=numbers))
    first, last = result.report.covers
    assert first == 2 and last < len(raw)  # message 1 is the system prompt
    assert result.snapshot is not None and result.snapshot.covers == f"{first}..{last}"
