"""A fold is always possible, even when the context is already far over the window.

Contexts at 150 %, 300 % and 1,000 % of the chat window (a paste, an import, a switch to a smaller model)
are folded by both summarizers; the LLM one is a loopback OpenAI server whose model has a window of its
own, smaller than the chat's, and refuses (as OpenAI does) any request that would not fit it.
"""

from __future__ import annotations

import json

import pytest
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.invariants import violations
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.policy import Trigger
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.summarizers.llm import LLMSummarizer, WithFallback
from foldchat.engine.tokens import LiteLLMCounter

from cli.in_process import foldchat_main
from servers.fake_openai import FakeOpenAI
from trajectories import agent_trajectory, everyday_chat

MODEL = "gpt-4o"
WINDOW = 8_000
SUMMARIZER_WINDOW = 4_096
COUNTER = LiteLLMCounter(MODEL)
REPLY = {"overall_goal": "Plan the trip and fix the tests", "user_requests": [], "key_knowledge": [],
         "decisions": [], "artifacts": [], "task_state": ["in progress"]}  # fmt: skip


def over_window(raw: list[dict], percent: int) -> list[Message]:
    """The shortest prefix of `raw` at `percent` % of the window, ending on a user message when it can."""
    messages = parse_messages(raw)
    size, end = 0, len(messages)
    for index, message in enumerate(messages):
        size += COUNTER.count_message(message)
        if size >= WINDOW * percent // 100:
            end = index + 1
            break
    prefix = messages[:end]
    while prefix[-1].role == "assistant" and not prefix[-1].tool_calls and prefix[-2].role != "tool":
        prefix = prefix[:-1]  # a chat ends on its user's question; an agent turn on its newest exchange
    assert COUNTER.count(prefix) >= WINDOW * percent // 100 * 0.9
    return prefix


CASES = {
    "chat": lambda: everyday_chat(60)[0],
    "agent": lambda: agent_trajectory(90_000)[0],
}


def emergency(messages: list[Message], summarizer: object) -> object:
    request = FoldRequest(counter=COUNTER, window=WINDOW, summarizer=summarizer, trigger=Trigger.EMERGENCY)  # type: ignore[arg-type]
    return fold_context(messages, request)


def check_folded(messages: list[Message], result: object) -> None:
    report = result.report  # type: ignore[attr-defined]
    assert report.compressed and not report.failed, report.reason
    assert report.tokens_after + report.reserved_output <= report.target_tokens
    assert report.tokens_after == COUNTER.count(result.messages)  # type: ignore[attr-defined]
    systems = [m for m in messages if m.role == "system"]
    assert violations(result.messages, systems) == []  # type: ignore[attr-defined]
    current = [m for m in messages if m.role == "user"][-1]
    assert current in result.messages  # type: ignore[attr-defined]  # the current user message, verbatim


@pytest.mark.parametrize("percent", [150, 300, 1000])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_rules_fold_brings_any_over_window_context_under_the_target(case, percent):
    messages = over_window(CASES[case](), percent)
    check_folded(messages, emergency(messages, RulesSummarizer()))


@pytest.fixture
def small_model():
    server = FakeOpenAI().start()
    server.context_window = SUMMARIZER_WINDOW
    server.reply = json.dumps(REPLY)
    yield server
    server.stop()


def llm(server: FakeOpenAI) -> WithFallback:
    target = ModelTarget(name="small", litellm_model="openai/fake-model", window=SUMMARIZER_WINDOW,
                         api_base=server.base_url, api_key_env="HOME")  # fmt: skip
    return WithFallback(LLMSummarizer(target))


@pytest.mark.parametrize("percent", [150, 300, 1000])
def test_the_llm_fold_sends_only_requests_that_fit_the_summarizers_own_window(small_model, percent):
    """An agent turn with big tool pairs: every prompt is counted and split or condensed until it fits."""
    messages = over_window(CASES["agent"](), percent)
    result = emergency(messages, llm(small_model))
    check_folded(messages, result)
    assert small_model.rejected == []
    assert result.report.summarizer == "llm:small"  # never the rules fallback
    assert all(tokens <= SUMMARIZER_WINDOW for tokens in small_model.prompt_tokens)


def test_the_llm_fold_of_a_chat_three_times_the_window_keeps_every_booking(small_model):
    """(At ten times, 60 bookings no longer fit the snapshot's 15 % of an 8k window, whoever summarizes.)"""
    raw, facts = everyday_chat(60)
    messages = over_window(raw, 300)
    result = emergency(messages, llm(small_model))
    check_folded(messages, result)
    assert small_model.rejected == [] and result.report.summarizer == "llm:small"
    sent = "".join(m.text for m in result.messages)
    stated = [f for f in facts if f in "".join(m.text for m in messages)]
    assert [f for f in stated if f not in sent] == []


def test_a_fold_that_would_not_shrink_the_context_is_discarded_and_says_so():
    messages = parse_messages([
        {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Thanks."},
    ])  # fmt: skip
    request = FoldRequest(counter=COUNTER, window=WINDOW, summarizer=RulesSummarizer(), force=True)
    result = fold_context(messages, request)
    assert not result.report.compressed and result.report.failed
    assert "would not make the context smaller" in result.report.reason
    assert result.messages == messages


def compress(raw: list[dict], *extra: str) -> dict:
    done = foldchat_main(
        "compress", "-", "--model", MODEL, "--context-window", str(WINDOW), *extra, stdin=json.dumps(raw)
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_compress_folds_a_context_ten_times_the_window_with_both_summarizers(small_model, tmp_path):
    from foldchat.engine.messages import dump_messages

    raw = dump_messages(over_window(CASES["agent"](), 1000))
    config = tmp_path / "c.toml"
    config.write_text(
        f'[models.small]\nmodel = "openai/fake-model"\napi_base = "{small_model.base_url}"\n'
        f"context_window = {SUMMARIZER_WINDOW}\n"
    )
    for extra in ([], ["--summarizer", "llm", "--summarizer-model", "small", "--config", str(config)]):
        out = compress(raw, *extra)
        report = out["report"]
        assert report["compressed"] and report["tokens_before"] >= 10 * WINDOW * 0.9
        assert report["tokens_after"] + report["reserved_output"] <= report["target_tokens"]
        assert report["summarizer"] == ("rules" if not extra else "llm:small")
    assert small_model.rejected == []
