"""Turns left, and what the context takes of a window (engine/headroom.py): one arithmetic for the gauge,
the model picker and the switch notice. Issue 44, "the numbers disagree": "turns left" went 7 → 12 → 16 →
56 → 61 → 55 over eight short turns (one long paste left the average of the last five), said "≈ 0 turns
left" while one more turn fit, and the picker counted the reply's reserve where the gauge did not."""

from __future__ import annotations

import tempfile
from itertools import pairwise
from pathlib import Path

from foldchat.engine import Message, OpenOptions, Session, Usage
from foldchat.engine.headroom import TurnSize
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy, decide
from hypothesis import HealthCheck, given, settings, strategies as st
from test_session_folds import settings_for

QUESTION = "When does the ferry to the island leave tomorrow?"
ANSWER = "At 7:40, from pier 3."
WINDOW = 8_000
EXAMPLES = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


def new_database(folder: Path) -> Path:
    """A database of its own (one per example): `opened` opens a session on it."""
    return Path(tempfile.mkdtemp(dir=folder)) / "app.db"


def opened(fake, database: Path) -> Session:
    session = Session.open(OpenOptions(settings=settings_for(fake, WINDOW), database=database))
    session.connect()
    return session


def store(session: Session, exchanges: list[tuple[str, str]]) -> None:
    for prompt, reply in exchanges:
        for message in parse_messages([{"role": "user", "content": prompt}, {"role": "assistant", "content": reply}]):
            session.store.append(session.context.stored_id(), message)


def short_turn(session: Session) -> TurnSize:
    count = session.counter().count_message
    prompt = count(Message.user(QUESTION))
    return TurnSize(prompt, prompt + count(Message.assistant(ANSWER)))


@given(
    tokens=st.integers(0, 20_000),
    reserved=st.integers(0, 4_000),
    trigger=st.integers(1, 20_000),
    prompt=st.integers(1, 3_000),
    answer=st.integers(1, 3_000),
)
@settings(max_examples=300, deadline=None)
def test_turns_left_are_the_typical_turns_the_policy_sends_unfolded(tokens, reserved, trigger, prompt, answer):
    """Turn after turn of the typical size, the policy's own test (`decide`: the context with the new
    prompt and the reply's reserve against the trigger) lets exactly that many through before a fold:
    never 0 while one more fits, never one that would fold."""
    window = 10 * trigger + 10 * reserved + 100_000  # no emergency: only the trigger decides
    policy = FoldPolicy(min_messages=0, trigger_tokens=trigger)
    sent, context = 0, tokens
    while not decide(policy, usage=context + prompt + reserved, window=window, message_count=100).fold:
        sent, context = sent + 1, context + prompt + answer
    usage = Usage(tokens, window, reserved, trigger, 0, TurnSize(prompt, prompt + answer))
    assert usage.turns_left == sent
    assert usage.fits == (not decide(policy, usage=tokens + reserved, window=window, message_count=100).fold)
    assert usage.fold_at == max(0, trigger - reserved)  # what the context alone may reach: the gauge's mark


@given(shorts=st.integers(2, 8), odd=st.integers(0, 8), words=st.integers(1, 1_500))
@EXAMPLES
def test_one_long_or_short_turn_does_not_move_the_typical_turn(fake, tmp_path, monkeypatch, shorts, odd, words):
    """A long paste (or a one-word "ok") among the recent turns: the typical turn stays the others'."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    exchanges = [(QUESTION, ANSWER)] * shorts
    exchanges.insert(min(odd, shorts), ("lorem ipsum " * words, "Noted."))
    with opened(fake, new_database(tmp_path)) as session:
        store(session, exchanges)
        usage = session.usage()
        assert (usage.turn.prompt, usage.per_turn) == (short_turn(session).prompt, short_turn(session).exchange)


@given(sizes=st.lists(st.integers(60, 150), min_size=4, max_size=8), unanswered=st.booleans())
@EXAMPLES
def test_the_same_stored_conversation_counts_the_same_reopened_and_folded(
    fake, tmp_path, monkeypatch, sizes, unanswered
):
    """Reopened, the same stored conversation says the same; folded, the typical turn is the one the
    transcript holds (a fold changes what is sent, not what a turn takes), and a prompt still waiting
    for its reply is not a turn."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    exchanges = [(f"Note {n}: " + "the pier moved. " * size, "Noted.") for n, size in enumerate(sizes)]
    database = new_database(tmp_path)
    with opened(fake, database) as session:
        store(session, exchanges)
        before = session.usage()
        if unanswered:
            session.add_user_message("and the return ferry? " * 40)
        waiting = session.usage()
    with opened(fake, database) as session:
        assert session.usage() == waiting  # the same numbers after a restart
        assert waiting.turn == before.turn
        report = session.fold_now()
        assert report is not None and report.compressed
        assert session.usage().tokens < waiting.tokens and session.usage().turn == before.turn
    with opened(fake, database) as session:
        assert session.usage().turn == before.turn


def test_turns_left_go_down_one_a_turn_after_a_long_paste(fake, tmp_path, monkeypatch):
    """The issue's conversation: a long paste, then short turns. Each short turn takes one turn off what
    is left once two say what a turn takes, and none adds any (they went from 16 up to 56 when the paste left
    the last five turns, and down from 61 to 55 in one turn)."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    with opened(fake, new_database(tmp_path)) as session:
        store(session, [("Here is my paste: " + "lorem ipsum dolor " * 300, "Noted.")])
        said = [session.usage().turns_left]
        for _ in range(9):
            store(session, [(QUESTION, ANSWER)])
            said.append(session.usage().turns_left)
        settled = said[2:]  # two short turns in, the paste is the odd one out: the median is a short turn
        assert [a - b for a, b in pairwise(settled)] == [1] * (len(settled) - 1), said


def test_many_turns_are_said_roughly_so_the_digits_do_not_move_every_turn():
    from foldchat.engine import turns_words

    # a user's 16k conversation of short turns: 405, 392, 436, 492 turns left, one turn after another
    assert [turns_words(n) for n in (405, 392, 436, 492)] == ["≈ 400 turns left"] * 3 + ["≈ 500 turns left"]
    assert turns_words(57) == "≈ 60 turns left" and turns_words(23) == "≈ 20 turns left"
    assert turns_words(19) == "≈ 19 turns left" and turns_words(1) == "≈ 1 turn left"
    assert turns_words(101, short=True) == "≈100 turns" and turns_words(0, short=True) == "≈0 turns"
