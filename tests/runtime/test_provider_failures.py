"""`foldchat ask` against a loopback OpenAI server that fails in every way a provider does."""

import json
import sqlite3
import subprocess

import pytest

from cli.in_process import foldchat_main as foldchat  # in this process: what `ask` exits with, prints and stores


def rows(home):
    db = sqlite3.connect(home / "foldchat.db")
    return db.execute("SELECT role, status, payload, error FROM messages ORDER BY id").fetchall()


def test_a_good_reply_streams_and_is_stored(home, fake):
    done = foldchat("ask", "hi there", "--model", "fake")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == fake.reply
    stored = rows(home)
    assert [(r[0], r[1]) for r in stored] == [("user", "complete"), ("assistant", "complete")]
    assert fake.reply in stored[1][2]


@pytest.mark.parametrize(
    ("script", "requests", "stderr"),
    [
        (["500", "500", "ok"], 3, "server error 500; retry 2"),
        (["429:1", "ok"], 2, "rate limited (429); retry 1 in 1.0 s"),
        (["garbage", "ok"], 2, "retry 1"),
    ],
)
def test_transient_failures_are_retried(home, fake, script, requests, stderr):
    fake.script = script
    done = foldchat("ask", "hello", "--model", "fake")
    assert done.returncode == 0, done.stderr
    assert len(fake.requests) == requests
    assert stderr in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("behaviour", "requests", "message"),
    [
        ("500", 3, "server error 500"),
        ("hang", 3, "no answer within the timeout"),
        ("401", 1, "authentication failed: check FAKE_API_KEY"),
        ("404", 1, "model openai/fake-model does not exist for provider openai"),
        ("400", 1, "request rejected"),
        ("nofinish", 1, "the stream ended before the model finished its reply"),
        ("empty", 3, "the stream ended before the reply began"),
    ],
)
def test_persistent_failures_exit_1_with_one_line_and_keep_the_user_message(home, fake, behaviour, requests, message):
    fake.script = [behaviour]
    done = foldchat("ask", "keep me", "--model", "fake")
    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(fake.requests) == requests
    stored = rows(home)
    assert stored[0][:2] == ("user", "complete") and "keep me" in stored[0][2]
    assert stored[1][1] == "error" and message in stored[1][3]


def test_a_dropped_connection_keeps_the_partial_reply(home, fake):
    fake.script = ["drop"]
    done = foldchat("ask", "talk", "--model", "fake")
    assert done.returncode == 1
    assert "partial reply kept" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.startswith("Hello from the")
    assert len(fake.requests) == 1  # text already arrived: never retried (it would repeat itself)
    role, status, payload, _ = rows(home)[1]
    assert (role, status) == ("assistant", "error") and "Hello from the" in payload


def test_a_self_hosted_server_needs_no_key(home, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = foldchat("ask", "hi", "--model", "selfhosted")
    assert done.returncode == 0, done.stderr
    assert len(fake.requests) == 1


def test_missing_key_is_named(home, fake, monkeypatch):
    monkeypatch.delenv("FAKE_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = foldchat("ask", "hi", "--model", "gpt-4o")
    assert done.returncode == 1
    assert "OPENAI_API_KEY is not set" in done.stderr
    assert fake.requests == []


def test_usage_errors_exit_2(home):
    assert foldchat("ask", "hi", "--model", "no-such-model-zz").returncode == 2
    assert foldchat("ask", "-", stdin="  \n").returncode == 2
    done = foldchat("ask", "hi", "--conversation", "999", "--model", "fake")
    assert done.returncode == 1 and "no conversation 999" in done.stderr


def test_stdin_prompt_conversations_and_export(home, fake):
    assert foldchat("ask", "-", "--model", "fake", stdin="first question\n").returncode == 0
    assert foldchat("ask", "second", "--model", "fake").returncode == 0  # continues the latest
    assert foldchat("ask", "other", "--new", "--model", "fake", "--system", "be terse").returncode == 0
    listing = foldchat("list").stdout
    assert "first question" in listing and "other" in listing
    shown = foldchat("show", "1").stdout
    assert "first question" in shown and "second" in shown
    md = foldchat("export", "2", "--format", "md").stdout
    assert "## [1] system" in md and "be terse" in md
    assert '"role": "assistant"' in foldchat("export", "1", "--format", "json").stdout
    # the second request carried the whole history
    assert [m["role"] for m in fake.requests[1]["messages"]] == ["user", "assistant", "user"]


def test_ask_folds_before_sending_when_the_policy_triggers(home, fake):
    long = "Ticket OPS-77 is due 2026-12-01. " + "context " * 1500
    notices = []
    for n in range(9):
        done = foldchat("ask", f"{n}: {long}", "--model", "fake")
        assert done.returncode == 0, done.stderr
        notices += [line for line in done.stderr.splitlines() if line.startswith("foldchat: folded")]
    assert notices and all("tokens · rules" in line for line in notices)
    sent = fake.requests[-1]["messages"]
    assert "<state_snapshot" in sent[0]["content"] and "OPS-77" in sent[0]["content"]
    assert sent[-1]["content"].startswith("8: Ticket OPS-77")
    # the transcript kept everything: 9 questions, 9 answers
    assert len(rows(home)) == 18


def test_standard_base_url_variable_points_any_model_at_a_compatible_server(home, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", fake.base_url)
    done = foldchat("ask", "hi", "--model", "gpt-4o-mini", "--new")
    assert done.returncode == 0, done.stderr
    assert fake.requests[-1]["model"] == "gpt-4o-mini"


def ask_at_the_trigger(*options: str) -> subprocess.CompletedProcess[str]:
    """`foldchat ask` in a conversation (imported in one go) that this question takes past the fold trigger."""
    turns = [
        {"role": "user", "content": f"{n}: Ticket OPS-77 is due 2026-12-01. " + "context " * 1500} for n in range(8)
    ]
    history = [m for turn in turns for m in (turn, {"role": "assistant", "content": "Noted."})]
    assert foldchat("import", "-", stdin=json.dumps(history)).returncode == 0
    done = foldchat("ask", "and the due date?", "--model", "fake", *options)
    assert done.returncode == 0, done.stderr
    return done


def test_ask_with_fold_auto_ask_folds_and_says_so_since_nobody_can_answer(home, fake, monkeypatch):
    """It printed "fold now?", a question nobody can answer in `foldchat ask`."""
    monkeypatch.setenv("FOLDCHAT_FOLD__AUTO", "ask")
    done = ask_at_the_trigger()
    assert "fold now?" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("foldchat: folded ") and "fold.auto is ask" in done.stderr
    assert "--no-fold" in done.stderr
    assert any("<state_snapshot" in str(m["content"]) for m in fake.requests[-1]["messages"])


def test_ask_no_fold_sends_unfolded_and_fold_folds_whatever_fold_auto_says(home, fake, monkeypatch):
    monkeypatch.setenv("FOLDCHAT_FOLD__AUTO", "ask")
    done = ask_at_the_trigger("--no-fold")
    assert "fold now?" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("foldchat: not folded (--no-fold)") and "--fold folds it" in done.stderr
    assert all("<state_snapshot" not in str(m["content"]) for m in fake.requests[-1]["messages"])
    monkeypatch.setenv("FOLDCHAT_FOLD__AUTO", "off")
    folded = foldchat("ask", "and now?", "--model", "fake", "--fold")
    assert folded.returncode == 0 and folded.stderr.startswith("foldchat: folded "), folded.stderr
    assert any("<state_snapshot" in str(m["content"]) for m in fake.requests[-1]["messages"])
    helped = foldchat("ask", "--help").stdout
    assert "--fold" in helped and "--no-fold" in helped


def test_a_stream_that_ended_early_is_named_so_whatever_litellm_calls_it():
    """litellm 1.110 reports a stream without a finish reason as `MidStreamFallbackError`, a 503; it is
    classified by what happened, not worded "server error"."""
    from foldchat.engine.lazy import load_litellm
    from foldchat.engine.providers.errors import classify
    from foldchat.engine.providers.target import ModelTarget

    litellm = load_litellm()
    target = ModelTarget(name="fake", litellm_model="openai/fake-model", window=8192)
    said = "Stream ended before a finish_reason was received"
    errors = [
        litellm.ServiceUnavailableError(message=said, llm_provider="openai", model="fake-model"),
        RuntimeError(f"litellm.InternalServerError: {said}"),
    ]
    fallback = getattr(litellm.exceptions, "MidStreamFallbackError", None)
    if fallback is not None:
        errors.append(fallback(message=said, model="fake-model", llm_provider="openai"))
    for error in errors:
        problem = classify(error, target, started=True)
        assert problem.message == "fake: the stream ended before the model finished its reply (no finish reason)"
        assert problem.retryable
        assert "server error" not in classify(error, target, started=False).message


def test_a_reply_cut_by_the_output_cap_is_marked_with_how_to_get_the_rest(home, fake):
    fake.script = ["cut"]
    done = foldchat("ask", "tell me everything", "--model", "fake")
    assert done.returncode == 0 and done.stdout.strip()
    assert "[cut at" in done.stderr and 'foldchat ask "continue"' in done.stderr
    fake.script = ["ok"]
    done = foldchat("ask", "short one", "--model", "fake")
    assert "[cut at" not in done.stderr


def test_ask_never_sends_what_it_knows_does_not_fit_when_it_may_not_fold(home, fake, monkeypatch):
    """With fold.auto off (or ask), a send over the window was made anyway, and failed as "stream ended"."""
    monkeypatch.setenv("FOLDCHAT_FOLD__AUTO", "off")
    long = "Ticket OPS-77 is due 2026-12-01. " + "context " * 1500
    for n in range(12):
        done = foldchat("ask", f"{n}: {long}", "--model", "fake")
        if done.returncode != 0:
            break
    assert done.returncode == 1 and "over fake's 16,000-token window" in done.stderr
    assert "not sent" in done.stderr and "--fold" in done.stderr and "Traceback" not in done.stderr
    assert all(m["content"] != f"{n}: {long}" for m in fake.requests[-1]["messages"])  # never sent


def test_a_reply_never_asks_for_more_tokens_than_the_window_leaves(home, fake, monkeypatch, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        config.read_text().replace("context_window = 16000", "context_window = 16000\nmax_output_tokens = 65000", 1)
    )
    done = foldchat("ask", "hello there", "--model", "fake")
    assert done.returncode == 0, done.stderr
    sent = fake.requests[-1]
    assert sent["max_tokens"] < 16000


def test_a_stream_litellm_stops_for_repeating_one_chunk_is_named_so(home, fake):
    """litellm ends a stream whose chunks repeat (a model caught in a loop) with an error of its own; it was
    reported as "no finish reason"."""
    fake.script = ["repeat"]
    done = foldchat("ask", "say it again", "--model", "fake")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "no finish reason" not in done.stderr and "internal error" not in done.stderr
    assert "repeated the same chunk" in done.stderr and "litellm stopped the stream" in done.stderr, done.stderr
    assert "again and again" in done.stdout  # what came before the guard stopped it stays shown
