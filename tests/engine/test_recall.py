"""Recall, engine part: folded and pruned originals come back verbatim, bounded, by text or number."""

from __future__ import annotations

import pytest
from foldchat.engine import Session
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.recall import RECALL_CHARS, RECALL_TOOL, supports_recall
from test_session_folds import open_session, store_all

from trajectories import agent_trajectory, everyday_chat


@pytest.fixture
def folded(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 16_000) as session:
        store_all(session, everyday_chat(10)[0])
        report = session.fold_now()
        assert report is not None and report.compressed
        yield session


def test_a_folded_message_comes_back_verbatim_by_text(folded: Session):
    numbers = folded.context.message_numbers()
    fold = folded.context.active_fold()
    first = next(s for s in folded.context.transcript() if s.id >= fold.first_message_id and s.message.role == "user")
    code = next(word for word in first.message.text.split() if word.startswith("BK-")).rstrip(",;.")
    answer = folded.recall(query=code)
    assert f"[message {numbers[first.id]}, user," in answer and first.message.text in answer


def test_a_message_the_context_still_sends_is_not_recalled(folded: Session):
    last = folded.context.transcript()[-1]
    answer = folded.recall(message=folded.context.message_numbers()[last.id])
    assert "is not folded or pruned" in answer


def test_long_originals_come_in_bounded_parts_with_a_continuation_hint(fake, tmp_path, monkeypatch):
    raw, _ = agent_trajectory(40_000)
    with open_session(fake, tmp_path, monkeypatch, 32_000) as session:
        store_all(session, raw)
        assert session.fold_now().compressed  # type: ignore[union-attr]
        longest = max(session.context.transcript(), key=lambda s: len(s.message.text))
        number = session.context.message_numbers()[longest.id]
        assert len(longest.message.text) > RECALL_CHARS
        parts, offset = [], 0
        while True:
            answer = session.recall(message=number, offset=offset)
            _header, _, body = answer.partition("\n")
            body, _, hint = body.partition(f"\n(continues: call recall with message={number} and offset=")
            parts.append(body)
            assert len(body) <= RECALL_CHARS
            if not hint:
                break
            offset = int(hint.rstrip(")"))
        assert "".join(parts) == longest.message.text


def test_the_tool_is_offered_only_to_models_with_tool_calls():
    assert RECALL_TOOL["function"]["name"] == "recall"
    assert supports_recall(ModelTarget(name="gpt-4o", litellm_model="gpt-4o", window=128_000))
    assert not supports_recall(ModelTarget(name="local", litellm_model="openai/gemma", window=8192, backend=EMBEDDED))
