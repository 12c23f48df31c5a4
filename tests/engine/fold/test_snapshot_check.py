"""Every snapshot is checked against the span it replaces; lost identifiers come back."""

from __future__ import annotations

from collections.abc import Sequence

from foldchat.engine import snapshot as snap
from foldchat.engine.facts import identifiers
from foldchat.engine.fold.check import check_snapshot
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers.base import SummaryRequest
from foldchat.engine.tokens import LiteLLMCounter
from hypothesis import given, settings, strategies as st

from trajectories import agent_trajectory, everyday_chat

COUNTER = LiteLLMCounter("gpt-4o")


class ForgetfulSummarizer:
    """A model that paraphrases: the gist of each request, no ids, dates, paths or numbers."""

    name = "llm:forgetful"
    input_budget: int | None = None

    def summarize(self, request: SummaryRequest) -> Snapshot:
        asked = [m for m in request.messages if m.role == "user"]
        return Snapshot(
            overall_goal="Help the user with their plans",
            user_requests=[f"the user asked something ({len(m.text.split())} words)" for m in asked],
            task_state=["in progress"],
        )

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        return parts[-1]


def fold(messages: list[Message], window: int) -> tuple[Snapshot, object, list[Message]]:
    request = FoldRequest(counter=COUNTER, window=window, summarizer=ForgetfulSummarizer(), force=True,
                          policy=FoldPolicy(snapshot_ratio=0.4))  # fmt: skip
    result = fold_context(messages, request)
    snapshot = snap.parse(next(m.text for m in result.messages if snap.is_snapshot_message(m)))
    assert snapshot is not None
    return snapshot, result.report, result.folded


def test_booking_codes_and_dates_a_model_dropped_are_restored_under_user_requests():
    raw, facts = everyday_chat(8)
    messages = parse_messages(raw)
    snapshot, report, head = fold(messages, 32_000)
    folded = [m for m in head if m.role == "user"]
    stated = [f for f in facts if any(f in m.text for m in folded)]
    assert stated and report.restored_identifiers >= len(stated)  # type: ignore[attr-defined]
    for fact in stated:
        assert any(fact in item for item in snapshot.user_requests), fact


def test_edited_paths_and_commands_a_model_dropped_are_restored_under_artifacts():
    raw, _ = agent_trajectory(20_000)
    messages = parse_messages(raw)
    snapshot, report, _ = fold(messages, 32_000)
    assert report.restored_identifiers > 0  # type: ignore[attr-defined]
    assert snapshot.artifacts and any("/" in line for line in snapshot.artifacts)
    assert any(": edited" in line or "ran `" in line or "read" in line for line in snapshot.artifacts)


def test_the_report_says_how_many_in_compress_json():
    raw, _ = everyday_chat(6)
    _, report, _ = fold(parse_messages(raw), 32_000)
    assert report.to_dict()["restored_identifiers"] == report.restored_identifiers > 0  # type: ignore[attr-defined]


WORDS = st.sampled_from(["please", "book", "the", "room", "for", "us", "and", "check", "it", "again"])
IDENTS = st.one_of(
    st.from_regex(r"[A-Z]{3}-[1-9][0-9]{2,4}", fullmatch=True),
    st.from_regex(r"/srv/[a-z]{3,8}/[a-z]{3,8}\.py", fullmatch=True),
    st.from_regex(r"2026-0[1-9]-1[0-9]", fullmatch=True),
    st.from_regex(r"v[1-9]\.[0-9]\.[0-9]", fullmatch=True),
)
SENTENCE = st.lists(st.one_of(WORDS, IDENTS), min_size=3, max_size=14).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(SENTENCE, min_size=1, max_size=6))
def test_after_the_check_every_identifier_a_user_stated_is_in_the_snapshot(texts):
    messages = []
    for text in texts:
        messages += [Message.user(text + "."), Message.assistant("Done.")]
    checked = check_snapshot(Snapshot(overall_goal="x"), messages)
    rendered = snap.render(checked.snapshot)
    stated = {i for text in texts for i in identifiers(text + ".")}
    assert {i for i in stated if i not in rendered} == set()
    assert checked.restored == len(stated)
    assert check_snapshot(checked.snapshot, messages).restored == 0  # a checked snapshot passes as it is
