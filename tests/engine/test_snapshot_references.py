"""Snapshot items name the transcript messages they stand for (`(#12)`, `(#40, #52)`).

The numbers are the conversation's transcript numbers (what the TUI, `foldchat show`, pruned stubs and
`recall` use); on a bare JSON list (`foldchat compress`) they are positions in that list. Every check
here looks at the message a reference names and asserts it really holds what the item says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.facts import identifiers
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.recall import recall, recallable
from foldchat.engine.references import body, merge_referenced, numbers_in, reference, split_reference
from foldchat.engine.snapshot import LIST_SECTIONS, Snapshot
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.summarizers.artifacts import terse
from foldchat.engine.tokens import LiteLLMCounter
from test_session_folds import open_session, store_all

from trajectories import agent_trajectory, everyday_chat

COUNTER = LiteLLMCounter("gpt-4o")
EDITED = "/workspace/billing-service/src/billing/export/csv_writer.py"
_FILE_LINE = re.compile(r"^(\S+): (?:created|edited|deleted|read)")
_RAN_LINE = re.compile(r"^ran `([^`]+)`")


def said(message: Message) -> str:
    """Everything a message says: its text and its tool calls' argument values, whitespace normalised."""
    parts = [message.text]
    for call in message.tool_calls:
        arguments = json.loads(call.arguments or "{}")
        parts += [str(value) for value in arguments.values()] if isinstance(arguments, dict) else [call.arguments]
    return " ".join(" ".join(parts).split())


def holds(section: str, item: str, message: Message) -> bool:
    """Whether `message` really holds what the snapshot item (without its reference) says it came from."""
    text, words = body(item), said(message)
    if section == "artifacts" and (file := _FILE_LINE.match(text)):
        return file.group(1) in words
    if section == "artifacts" and (ran := _RAN_LINE.match(text)):
        return ran.group(1).rstrip("…") in words
    if section == "recent_actions" and text.startswith("assistant: "):
        return text.removeprefix("assistant: ")[:30] in words
    if section == "key_knowledge" and text.startswith("mentioned: "):  # one line per message
        return all(ident in words for ident in text.removeprefix("mentioned: ").split(", "))
    if section == "task_state" and text.startswith("done: "):
        return any(ident in words for ident in identifiers(text))
    if section in ("constraints_and_preferences", "decisions", "open_questions", "pinned"):
        return text[:40] in words
    if section == "user_requests" and not text[0].isdigit():  # not a line merging earlier requests
        return text[:40] in words and all(ident in words for ident in identifiers(text))
    found = identifiers(text)
    return any(ident in words for ident in found) if found else text[:30] in words


def assert_references_point_home(snapshot: Snapshot, by_number: Mapping[int, Message]) -> int:
    """Every reference names a message of the conversation that holds what its item says; returns how many."""
    checked = 0
    for section in LIST_SECTIONS:
        for item in getattr(snapshot, section):
            for number in numbers_in(item):
                assert number in by_number, (section, item)
                if section == "errors_and_fixes" or (section == "recent_actions" and "assistant: " not in item):
                    continue  # an error's line and its fix are in different messages: checked below
                assert holds(section, item, by_number[number]), (section, item, number, by_number[number].text[:200])
                checked += 1
    return checked


def rules_fold(messages: list[Message], window: int, **policy: float) -> tuple[Snapshot, object]:
    request = FoldRequest(counter=COUNTER, window=window, summarizer=RulesSummarizer(), force=True,
                          policy=FoldPolicy(**policy))  # fmt: skip
    result = fold_context(messages, request)
    assert result.report.compressed, result.report.reason
    assert result.snapshot is not None
    return result.snapshot, result.report


def by_position(messages: list[Message]) -> dict[int, Message]:
    """A bare list's numbers: 1-based positions, system prompt included (what `foldchat compress` users see)."""
    return {n: m for n, m in enumerate(messages, start=1)}


# -- the format ----------------------------------------------------------------------------------------


def test_one_message_a_run_several_and_a_bounded_many():
    assert reference([12]) == "(#12)"
    assert reference([15, 12, 13, 14]) == "(#12–#15)"
    assert reference([14, 3, 9, 3]) == "(#3, #9, #14)"
    assert reference(range(1, 100, 2)) == "(#1, #3, …, #99)"
    assert reference([]) == ""
    assert split_reference("src/a.py: edited (lines 3–4) (#40, #52)") == ("src/a.py: edited (lines 3–4)", (40, 52))
    assert split_reference("ran `make` (#3–#5, #9)") == ("ran `make`", (3, 4, 5, 9))
    assert split_reference("booked room (12)") == ("booked room (12)", ())  # a detail, not a reference
    assert merge_referenced(["Keep going. (#5)", "Fix it. (#6)", "Keep going. (#30)"]) == [
        "Keep going. (#5, #30)",
        "Fix it. (#6)",
    ]
    # numbers a "…" left out stay left out, and say so
    assert merge_referenced(["x (#1, #3, …, #52)", "x (#60)"]) == ["x (#1, #3, …, #60)"]
    assert merge_referenced(["x (#1, …, #52)", "x (#60)"]) == ["x (#1, #52, …, #60)"]
    # a terse trail line drops its details, never its reference
    assert terse("src/a.py: edited×2 (sed -i), read (#1, #3, …, #52)") == "src/a.py: edited×2, read (#1, #3, …, #52)"


def test_a_merge_of_an_older_snapshot_keeps_both_references_and_survives_render_and_parse():
    older = Snapshot(user_requests=["Book BK-1 (#2)"], artifacts=["src/a.py: edited (#4)"], covers="2..9")
    newer = Snapshot(user_requests=["Book BK-2 (#12)"], artifacts=["src/a.py: edited (#40, #52)"], covers="10..60")
    merged = snap.merge(older, newer)
    assert merged.user_requests == ["Book BK-1 (#2)", "Book BK-2 (#12)"]
    assert merged.artifacts == ["src/a.py: edited (#4, #40, #52)"]  # the same line said by both: both named
    again = snap.parse(snap.render(merged))
    assert again is not None and again.user_requests == merged.user_requests and again.artifacts == merged.artifacts


# -- the rules summarizer on realistic conversations ------------------------------------------------------------


def test_an_agent_trajectory_items_name_the_messages_whose_tool_calls_they_come_from():
    messages = parse_messages(agent_trajectory(40_000)[0])
    snapshot, report = rules_fold(messages, 32_000, snapshot_ratio=0.3)
    by_number = by_position(messages)
    assert assert_references_point_home(snapshot, by_number) > 40
    first, last = report.covers  # type: ignore[attr-defined]
    line = next(a for a in snapshot.artifacts if a.startswith(f"{EDITED}: edited"))
    touched = [n for n in range(first, last + 1) if EDITED in said(by_number[n]) and by_number[n].tool_calls]
    assert len(touched) >= 3 and line.endswith(f" {reference(touched)}")  # exactly the calls that edited it
    # every item written from messages names them; only the goal and the focus line stand for none
    unreferenced = [i for s in LIST_SECTIONS for i in getattr(snapshot, s) if not numbers_in(i)]
    assert unreferenced == []
    # an error names the tool result that said it first, then the message that answered it
    error = snapshot.errors_and_fixes[0]
    said_at, answered_at = numbers_in(error)[0], numbers_in(error)[-1]
    assert by_number[said_at].role == "tool" and "AssertionError" in by_number[said_at].text
    assert (
        by_number[answered_at].role == "assistant"
        and body(error).rsplit(" → ", 1)[1][:30] in by_number[answered_at].text
    )


def test_an_everyday_chat_names_each_request_its_message():
    raw, facts = everyday_chat(14)
    messages = parse_messages(raw)
    snapshot, _ = rules_fold(messages, 16_000, snapshot_ratio=0.3)
    by_number = by_position(messages)
    assert assert_references_point_home(snapshot, by_number) >= 10
    for request in snapshot.user_requests:
        (number,) = numbers_in(request)
        assert by_number[number].role == "user"
        code = next(word for word in body(request).split() if word.startswith("BK-")).rstrip(",;.")
        assert code in by_number[number].text and code in facts


class ChunkingRules(RulesSummarizer):
    """The rules summarizer with a small input budget, so the fold summarizes in several chunks."""

    input_budget = 3_000


def test_a_fold_in_chunks_keeps_every_chunks_numbers():
    messages = parse_messages(agent_trajectory(40_000)[0])
    request = FoldRequest(counter=COUNTER, window=32_000, summarizer=ChunkingRules(), force=True,
                          policy=FoldPolicy(snapshot_ratio=0.3))  # fmt: skip
    result = fold_context(messages, request)
    assert result.report.chunks > 3 and result.snapshot is not None
    by_number = by_position(messages)
    assert assert_references_point_home(result.snapshot, by_number) > 40
    line = next(a for a in result.snapshot.artifacts if a.startswith(f"{EDITED}: edited"))
    first, last = result.report.covers  # type: ignore[misc]
    touched = [n for n in range(first, last + 1) if EDITED in said(by_number[n]) and by_number[n].tool_calls]
    assert line.endswith(f" {reference(touched)}")  # one line across chunks, naming the calls of every chunk


def test_the_references_cost_tokens_but_never_push_the_snapshot_over_its_budget():
    messages = parse_messages(agent_trajectory(60_000)[0])
    window, ratio = 32_000, 0.015
    snapshot, report = rules_fold(messages, window, snapshot_ratio=ratio)
    assert report.snapshot_tokens <= int(ratio * window)  # type: ignore[attr-defined]
    line = next(a for a in snapshot.artifacts if a.startswith(f"{EDITED}: edited"))  # a change is never dropped
    assert numbers_in(line) and "(replaced" not in line  # its details went first; its reference stayed
    assert assert_references_point_home(snapshot, by_position(messages)) > 0


# -- numbers are the transcript's: stable through later folds, and what recall takes -----------------------


def test_after_three_successive_folds_the_references_still_point_at_the_right_messages(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 8_000) as session:
        store_all(session, everyday_chat(5)[0])
        assert session.fold_now().compressed  # type: ignore[union-attr]
        first = snap.parse(session.chain.snapshot_text(session.context.active_fold()))  # type: ignore[arg-type]
        assert first is not None
        for seed in (41, 42):
            store_all(session, everyday_chat(4, seed=seed)[0][1:])
            report = session.auto.fold_if_needed()
            assert report is not None and report.compressed
        latest = snap.parse(next(m.text for m in session.context.messages() if snap.is_snapshot_message(m)))
        assert latest is not None and latest.depth == 3
        numbers = session.context.message_numbers()
        by_number = {numbers[s.id]: s.message for s in session.context.transcript()}
        assert assert_references_point_home(latest, by_number) >= 10
        # what the first fold named is still named with the same numbers, however often folded since
        earliest = first.user_requests[0]
        kept = next(
            r
            for r in latest.user_requests
            if body(earliest)[:40] in r or set(numbers_in(earliest)) <= set(numbers_in(r))
        )
        assert set(numbers_in(earliest)) <= set(numbers_in(kept))
        later = max(n for r in latest.user_requests for n in numbers_in(r))
        assert later > max(n for r in first.user_requests for n in numbers_in(r))  # the later folds' own messages


def test_a_number_taken_from_a_snapshot_item_recalls_the_verbatim_original(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 32_000) as session:
        store_all(session, agent_trajectory(40_000)[0])
        assert session.fold_now().compressed  # type: ignore[union-attr]
        text = next(m.text for m in session.context.messages() if snap.is_snapshot_message(m))
        line = next(line for line in text.splitlines() if line.startswith(f"- {EDITED}: edited"))
        numbers = session.context.message_numbers()
        transcript = [(numbers[s.id], s.message) for s in session.context.transcript()]
        originals = recallable(transcript, session.context.messages())
        for number in numbers_in(line):
            answer = recall(originals, message=number)
            original = dict(transcript)[number]
            assert answer.startswith(f"[message {number}, assistant,") and original.text in answer
            assert EDITED in said(original)  # the message the reference names made the edit
        mentioned = next(line for line in text.splitlines() if line.startswith("- mentioned: "))
        (first, *_rest) = numbers_in(mentioned)
        recalled = recall(originals, message=first)
        assert all(ident in recalled for ident in body(mentioned).removeprefix("- mentioned: ").split(", "))


@pytest.mark.parametrize("reply_refs", [True, False])
def test_the_llm_summarizer_is_given_the_numbers_and_asked_for_them(fake, reply_refs):
    from foldchat.engine.providers.target import ModelTarget
    from foldchat.engine.summarizers.llm import LLMSummarizer

    raw, _ = everyday_chat(6)
    messages = [m.evolve(key=100 + i) for i, m in enumerate(parse_messages(raw))]
    numbers = {100 + i: 41 + i for i in range(len(messages))}  # a conversation whose earlier part is older
    first_user = messages[1]
    request_item = "Lisbon trip, booking " + next(w for w in first_user.text.split() if w.startswith("BK-")).rstrip(",")
    fake.reply = json.dumps({
        "overall_goal": "Plan the trip",
        "user_requests": [request_item + (" (#42)" if reply_refs else "")],
        "decisions": ["Walk the old town first" + (" (#43)" if reply_refs else "")],
    })  # fmt: skip
    target = ModelTarget(name="fake", litellm_model="openai/fake-model", window=16_000, api_base=fake.base_url,
                         api_key_env="HOME")  # fmt: skip
    request = FoldRequest(counter=COUNTER, window=16_000, summarizer=LLMSummarizer(target), force=True,
                          policy=FoldPolicy(keep_ratio=0.01), numbers=numbers)  # fmt: skip
    result = fold_context(messages, request)
    assert result.report.summarizer == "llm:fake" and result.snapshot is not None
    system, user = (m["content"] for m in fake.requests[-1]["messages"])
    assert "(#12)" in system and "(#12–#15)" in system  # asked to end items with their numbers
    assert f'<message number="#42" role="user">{first_user.text}' in user  # each message labelled with its number
    assert '<message number="#43" role="assistant">' in user and 'number="#1"' not in user
    snapshot = result.snapshot
    if reply_refs:
        assert snapshot.decisions == ["Walk the old town first (#43)"]  # the model's references are kept
    # requests the model left out come back verbatim with their number; the trail and the check name theirs
    restored = [r for r in snapshot.user_requests if "we arrive on" in r]
    assert restored and all(numbers_in(r) and numbers_in(r)[0] in numbers.values() for r in restored)
    by_number = {numbers[m.key]: m for m in messages if m.key is not None}
    for item in restored:
        assert holds("user_requests", item, by_number[numbers_in(item)[0]])


def test_items_the_check_restores_after_a_forgetful_model_name_their_messages():
    from test_snapshot_check import ForgetfulSummarizer

    messages = parse_messages(agent_trajectory(40_000)[0])
    request = FoldRequest(counter=COUNTER, window=32_000, summarizer=ForgetfulSummarizer(), force=True,
                          policy=FoldPolicy(snapshot_ratio=0.3))  # fmt: skip
    result = fold_context(messages, request)
    assert result.report.restored_identifiers > 0 and result.snapshot is not None
    restored = [a for a in result.snapshot.artifacts if a.startswith(f"{EDITED}: edited")]
    assert restored and numbers_in(restored[0])  # put back by the check, with the calls that made the edits
    assert assert_references_point_home(result.snapshot, by_position(messages)) > 10


def test_a_pinned_message_names_the_message_it_was_pinned_from_and_is_still_counted_as_kept():
    raw, _ = everyday_chat(10)
    messages = parse_messages(raw)
    pinned = messages[5].text  # the third user message, pinned whole
    request = FoldRequest(counter=COUNTER, window=16_000, summarizer=RulesSummarizer(), force=True,
                          policy=FoldPolicy(snapshot_ratio=0.3), pinned=(pinned,))  # fmt: skip
    result = fold_context(messages, request)
    assert result.snapshot is not None and result.snapshot.pinned == [f"{pinned} (#6)"]
    assert result.report.pinned_kept == (1, 1)


def test_a_tight_budget_takes_references_off_trail_lines_before_it_drops_a_path():
    from foldchat.engine.fold.fit import fit_snapshot

    reads = [f"src/app/module_{n}.py: read (40 lines) (#{10 + 2 * n})" for n in range(20)]
    edited = "src/app/parser.py: edited×2 (#3, #9)"
    snapshot = Snapshot(artifacts=[*reads, edited])

    def size(s: Snapshot) -> int:
        return COUNTER.count_text(snap.render(s))

    bare = Snapshot(artifacts=[*(terse(body(r)) for r in reads), edited])  # details go first, then references
    fitted = fit_snapshot(snapshot, size(bare) + 2, size)
    assert size(fitted) <= size(bare) + 2
    assert [body(a) for a in fitted.artifacts] == [*bare.artifacts[:-1], body(edited)]  # every path kept
    assert fitted.artifacts[-1] == edited  # a changed path keeps its messages longest
    assert 0 < sum(1 for a in fitted.artifacts if not numbers_in(a)) <= len(reads)
