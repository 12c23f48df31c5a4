"""Fold correctness through the application API: stored folds rebuild exactly what the fold made."""

from __future__ import annotations

import threading

import pytest
from foldchat.engine import Message, OpenOptions, Session, snapshot as snap
from foldchat.engine.autofold import PAUSED as AUTO_FOLD_PAUSED
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.events import FoldProgress
from foldchat.engine.fold.prune import is_pruned
from foldchat.engine.invariants import violations
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.summarizers import RulesSummarizer

from trajectories import agent_trajectory, everyday_chat


def settings_for(fake, window: int) -> Settings:
    alias = {"model": "openai/fake-model", "api_base": fake.base_url, "api_key_env": "FAKE_KEY"}
    return Settings(
        default_model="fake",
        request_timeout=3,
        max_retries=0,
        summarizer="rules",
        models={"fake": ModelAlias(**alias, context_window=window)},
        fold=FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=512),
    )


def open_session(fake, tmp_path, monkeypatch, window: int) -> Session:
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    session = Session.open(OpenOptions(settings=settings_for(fake, window), database=tmp_path / "app.db"))
    session.connect()
    return session


def store_all(session: Session, raw: list[dict]) -> None:
    for message in parse_messages(raw):
        session.store.append(session.context.stored_id(), message)  # the raw store: the conversation is stored first


def test_an_agent_turn_folded_inside_itself_is_rebuilt_exactly(fake, tmp_path, monkeypatch):
    raw, facts = agent_trajectory(70_000)  # pruning alone cannot reach the target here
    with open_session(fake, tmp_path, monkeypatch, 32_000) as session:
        store_all(session, raw)
        report = session.auto.fold_if_needed()
        assert report is not None and report.compressed, report and report.reason
        context = session.context.messages()
        assert violations(context) == [] and snap.is_snapshot_message(context[1])
        assert context[3].text == raw[1]["content"]  # the request, kept verbatim though inside the range
        assert session.counter().count(context) == report.tokens_after
        assert session.chain.coverage(session.context.active_fold()) == report.folded_messages
        text = "\n".join(m.text for m in context)
        assert [f for f in facts if f not in text] == []


def test_a_pruned_only_fold_is_stored_and_rebuilt(fake, tmp_path, monkeypatch):
    raw, _ = agent_trajectory(13_000)
    raw += [
        {"role": "assistant", "content": "The timezone fix is in; all export tests pass."},
        {"role": "user", "content": "Thanks. Now write the PR description for BILL-4127."},
        {"role": "assistant", "content": "Draft: Fix timezone loss in InvoiceExporter.to_csv (BILL-4127)."},
        {"role": "user", "content": "Shorter, and mention @marta.k."},
    ]  # the agent loop is now an older turn: its outputs may be pruned
    with open_session(fake, tmp_path, monkeypatch, 16_000) as session:
        store_all(session, raw)
        report = session.auto.fold_if_needed()
        assert report is not None and report.reason.startswith("pruned") and report.snapshot_tokens == 0
        context = session.context.messages()
        assert not any(snap.is_snapshot_message(m) for m in context)
        assert sum(is_pruned(m) for m in context) == len(report.pruned_messages) == report.folded_messages
        assert session.counter().count(context) == report.tokens_after


def test_resummarize_with_a_focus_after_a_fold_refolds_from_the_originals(fake, tmp_path, monkeypatch):
    raw, _ = everyday_chat(30)
    with open_session(fake, tmp_path, monkeypatch, 16_000) as session:
        store_all(session, raw)
        first = session.auto.fold_if_needed()
        assert first is not None and first.compressed
        again = session.fold_now(focus="hotel booking codes")
        assert again is not None and again.compressed, again and again.reason
        folds = session.chain.folds()
        assert len(folds) == 2 and folds[-1].depth == 2
        snapshot = session.chain.snapshot_of(folds[-1])
        assert "focus requested for this fold: hotel booking codes" in snapshot.key_knowledge
        assert "focus requested" not in session.chain.snapshot_text(folds[0])  # from originals, not the old snapshot
        same = session.fold_now(focus="hotel booking codes")
        assert same is not None and not same.compressed and same.reason.startswith("no message arrived since the last fold")


def test_two_failed_automatic_folds_pause_them_until_resummarize(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 4_000) as session:
        # a short first turn, then a huge pasted log: folding the first turn cannot make room
        session.add_user_message("Hi, I'm on call for INC-5521.")
        session.store.append(session.conversation_id, Message.assistant("Sure, paste the log."))
        session.add_user_message("Summarize this log:\n" + "ERROR db timeout at 02:14 on db-7\n" * 225)
        reports = [session.auto.fold_if_needed() for _ in range(3)]
        assert [r.failed for r in reports[:2]] == [True, True]
        assert reports[2].reason == AUTO_FOLD_PAUSED and session.auto.paused
        session.fold_now()
        assert not session.auto.paused


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class HeldRules(RulesSummarizer):
    """The rules summarizer, held at its first call until `go` is set: a fold still running."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.go = threading.Event()

    def summarize(self, request):
        self.started.set()
        assert self.go.wait(10)
        return super().summarize(request)


def test_a_fold_left_running_finishes_before_the_next_one_starts_and_only_one_is_stored(fake, tmp_path, monkeypatch):
    """Esc mid-fold stops the face waiting, not the fold's thread: a send right after asks for a fold
    again. The second waits (and says so), then decides on the folded context: one fold is stored."""
    with open_session(fake, tmp_path, monkeypatch, 8_000) as session:
        store_all(session, everyday_chat(40)[0])
        held = HeldRules()
        monkeypatch.setattr(session.chain, "summarizer", lambda target: held)
        first: list[object] = []
        running = threading.Thread(target=lambda: first.append(session.auto.fold_if_needed()))
        running.start()
        assert held.started.wait(10)
        said: list[object] = []
        second = threading.Thread(target=lambda: said.append(session.auto.fold_if_needed(said.append)))
        second.start()
        second.join(0.5)
        assert second.is_alive()  # waiting for the first, not folding beside it
        held.go.set()
        running.join(10)
        second.join(10)
        assert any(isinstance(e, FoldProgress) and "waiting" in e.step for e in said)
        report = said[-1]
        assert first[0] is not None and first[0].compressed
        assert report is None or not report.compressed, report.reason  # the context is folded already
        assert len(session.chain.folds()) == 1
        assert violations(session.context.messages()) == []
