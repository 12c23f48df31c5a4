"""The user's standing rules are recognised when said and survive every fold word for word."""

from __future__ import annotations

import json

import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.fold.fit import fit_snapshot, rules_not_carried
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, dump_messages, parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.references import body
from foldchat.engine.rule_statements import standing_rules
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter
from hypothesis import given, settings, strategies as st
from test_snapshot_check import ForgetfulSummarizer

from cli.in_process import foldchat_main
from trajectories import everyday_chat

COUNTER = LiteLLMCounter("gpt-4o")
WINDOW = 8_000
RULES = [
    "From now on, answer in German.",
    "Call me Sam.",
    "Never book a flight that leaves before 9:00.",
    "Always give prices in EUR and per night.",
]
SAID_IN = [2, 2, 4, 4]  # the transcript message each rule was said in (the system prompt is #1)
LISTED = [f"{rule} (#{n})" for rule, n in zip(RULES, SAID_IN, strict=True)]  # as a snapshot item names it


def said(items: list[str]) -> list[str]:
    """Snapshot items without their message references: the user's words."""
    return [body(item) for item in items]


def planted_chat(turns: int = 12) -> list[dict]:
    """A trip chat whose user sets four standing rules in its first two messages, among other words."""
    raw, _ = everyday_chat(turns)
    raw[1]["content"] = f"{RULES[0]} {RULES[1]} {raw[1]['content']}"
    raw[3]["content"] = f"{raw[3]['content']} {RULES[2]}\n{RULES[3]}"
    return raw


def more_turns(n: int, start: int) -> list[Message]:
    raw, _ = everyday_chat(n, seed=start)
    return parse_messages(raw[1:])


def constraints_of(messages: list[Message]) -> list[str]:
    parsed = snap.parse(next(m.text for m in messages if snap.is_snapshot_message(m)))
    assert parsed is not None
    return parsed.constraints_and_preferences


def test_standing_rules_are_recognised_in_the_users_own_words():
    text = "Hi! From now on, answer in German. Do you always travel by train? Call me Sam. Book BK-1."
    assert standing_rules(text) == ["From now on, answer in German.", "Call me Sam."]


@pytest.mark.parametrize("summarizer", [RulesSummarizer, ForgetfulSummarizer])
def test_rules_planted_early_survive_three_successive_folds_word_for_word(summarizer):
    context = parse_messages(planted_chat())
    for fold_number in range(3):
        request = FoldRequest(counter=COUNTER, window=WINDOW, summarizer=summarizer(), force=True)
        result = fold_context(context, request)
        assert result.report.compressed, result.report.reason
        constraints = constraints_of(result.messages)
        assert [r for r in LISTED if r not in constraints] == [], (fold_number, constraints)
        context = [*result.messages, *more_turns(6, seed_of(fold_number))]
    assert snap.parse(next(m.text for m in result.messages if snap.is_snapshot_message(m))).depth == 3


def seed_of(fold_number: int) -> int:
    return 40 + fold_number


def test_compress_three_times_on_its_own_output_keeps_every_rule():
    data = planted_chat()
    for fold_number in range(3):
        done = foldchat_main(
            "compress", "-", "--model", "gpt-4o", "--context-window", str(WINDOW), "--force", stdin=json.dumps(data)
        )
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["report"]["compressed"]
        snapshot_text = next(m["content"] for m in out["messages"] if m.get("name") == snap.SNAPSHOT_NAME)
        parsed = snap.parse(snapshot_text)
        assert parsed is not None and [r for r in LISTED if r not in parsed.constraints_and_preferences] == []
        data = [*out["messages"], *dump_messages(more_turns(6, seed_of(fold_number)))]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=400), st.lists(st.text(min_size=1, max_size=60), max_size=30))
def test_fitting_a_snapshot_to_any_budget_never_cuts_a_standing_rule(budget, noise):
    """Rules are carried whole; only when they alone outgrow the room do the oldest go, and they are named."""
    snapshot = Snapshot(
        constraints_and_preferences=[*RULES, *(f"prefer {n}" for n in noise)],
        key_knowledge=list(noise),
        user_requests=[f"request {n}" for n in noise],
    )
    size = lambda s: COUNTER.count_text(snap.render(s))  # noqa: E731
    fitted = fit_snapshot(snapshot, budget, size)
    lost = rules_not_carried(snapshot, fitted)
    kept = [r for r in RULES if r in fitted.constraints_and_preferences]
    assert [*lost, *kept] == RULES  # whole or not at all, the oldest first
    if lost:  # nothing else that could give way is left
        assert size(fitted) > budget or not [i for i in fitted.constraints_and_preferences if i not in RULES]
    if size(Snapshot(constraints_and_preferences=RULES)) * 3 <= budget - size(
        Snapshot(user_requests=snapshot.user_requests)
    ):
        assert lost == []


def test_a_rule_dropped_in_the_inspector_is_gone_from_what_is_sent_and_from_later_folds(fake, tmp_path, monkeypatch):
    from test_session_folds import open_session, store_all

    with open_session(fake, tmp_path, monkeypatch, WINDOW) as session:
        store_all(session, planted_chat(5))
        assert session.fold_now().compressed  # type: ignore[union-attr]
        fold = session.context.active_fold()
        assert session.chain.standing_rules(fold) == LISTED  # type: ignore[arg-type]
        assert session.drop_rule(fold.id, 2) == "Call me Sam."  # type: ignore[union-attr]
        sent = constraints_of(session.context.messages())  # (the request that said it is still quoted, as said)
        assert "Call me Sam." not in said(sent) and LISTED[0] in sent
        store_all(session, everyday_chat(4, seed=77)[0][1:])
        report = session.auto.fold_if_needed()
        assert report is not None and report.compressed
        later = session.chain.standing_rules(session.context.active_fold())  # type: ignore[arg-type]
        assert "Call me Sam." not in said(later) and [r for r in LISTED if r != LISTED[1]] == later


def test_a_dropped_rule_stays_dropped_through_a_refold_from_the_originals(fake, tmp_path, monkeypatch):
    """/resummarize reads the user's own words again; the drop is remembered, so the rule is not found anew."""
    from test_session_folds import open_session, store_all

    with open_session(fake, tmp_path, monkeypatch, WINDOW) as session:
        store_all(session, planted_chat(5))
        assert session.fold_now().compressed  # type: ignore[union-attr]
        first = session.context.active_fold()
        assert session.drop_rule(first.id, 2) == "Call me Sam."  # type: ignore[union-attr]
        for focus in ("the hotel", "the prices"):  # twice, each with a focus, so each re-fold is a new snapshot
            report = session.fold_now(focus)
            assert report is not None and report.compressed
            again = session.context.active_fold()
            assert again is not None and again.id != first.id  # type: ignore[union-attr]
            assert session.chain.standing_rules(again) == [r for r in LISTED if r != LISTED[1]]
        assert "Call me Sam." not in said(constraints_of(session.context.messages()))


def test_a_long_paste_in_the_last_message_leaves_the_snapshot_room_for_the_rules():
    """A fold at the send of a long pasted message: the message is kept verbatim and took all the room
    under the target, and the snapshot kept nothing (every rule was reported as no longer carried)."""
    context = parse_messages(planted_chat(24))
    paste = " ".join(
        f"Tip {n}: the Naschmarkt stall {n} sells pastries for {n} EUR on weekday mornings." for n in range(60)
    )
    context.append(Message.user(f"Here is my sister's long message, what do you think?\n\n{paste}"))
    window = 4_000
    assert COUNTER.count(context[-1:]) > 900  # nearly all of the target's room once the reply's reserve is out
    request = FoldRequest(counter=COUNTER, window=window, summarizer=RulesSummarizer(), reserved_output=1024)
    result = fold_context(context, request)
    assert result.report.compressed, result.report.reason
    assert [r for r in LISTED if r not in constraints_of(result.messages)] == []
    assert not result.report.rules_not_carried
    assert COUNTER.count(result.messages) + 1024 < FoldPolicy().reset_at(window)  # no fold again at once
