"""The model recalls what was folded, through litellm, against loopback servers that
speak OpenAI's and Anthropic's wire formats (streamed `tool_calls` deltas; `tool_use` blocks with
`input_json_delta`). A conversation is folded by the rules summarizer, the fake model calls `recall`
for a fact only the folded originals hold, and its second request carries the original verbatim."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from foldchat.engine import (
    Failed,
    Finished,
    OpenOptions,
    Session,
    ToolCalling,
    ToolCallsAnswered,
)
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.invariants import violations
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.replies import MAX_TOOL_ROUNDS, NOT_OFFERED

from servers.fake_anthropic import FakeAnthropic
from servers.fake_openai import FakeOpenAI
from trajectories import everyday_chat

FERRY = (
    "Good question. The timetable changes in summer, so check it the day before. The ferry leaves from the "
    "blue pier behind the fish market, the one with the green clock tower; buy the ticket at the kiosk."
)
HISTORY = [
    {"role": "user", "content": "We take the ferry across the river in Lisbon. Where does it leave from?"},
    {"role": "assistant", "content": FERRY},
    *everyday_chat(10)[0],
]
QUESTION = "Where did you say the ferry leaves from?"
ANSWER = "It leaves from the blue pier behind the fish market."
MODELS = {"gpt": "openai/gpt-4o", "claude": "anthropic/claude-sonnet-4-5", "plain": "openai/fake-model"}


@pytest.fixture
def servers():
    openai, anthropic = FakeOpenAI().start(), FakeAnthropic().start()
    yield {"gpt": openai, "claude": anthropic, "plain": openai}
    openai.stop()
    anthropic.stop()


def open_folded(
    servers, tmp_path, monkeypatch, model: str, recall: bool = True, window: int = 16_000, history=HISTORY
) -> Session:
    """A session on `model` whose conversation is folded (rules summarizer): the ferry reply is only
    in the transcript now, not in anything the model is sent."""
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    aliases = {
        name: ModelAlias(
            model=litellm_model, api_base=servers[name].base_url, api_key_env="FAKE_KEY", context_window=window
        )
        for name, litellm_model in MODELS.items()
    }
    settings = Settings(
        default_model=model, request_timeout=5, max_retries=0, summarizer="rules", models=aliases,
        fold=FoldPolicy(min_messages=2, cooldown_messages=0, reserved_output=512, recall=recall),
    )  # fmt: skip
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "app.db"))
    session.connect()
    for message in parse_messages(history):
        session.store.append(session.context.stored_id(), message)
    report = session.fold_now()
    assert report is not None and report.compressed
    assert not any("blue pier" in m.text for m in session.context.messages())  # only the originals hold it
    session.add_user_message(QUESTION)
    return session


def tool_texts(messages: list[dict]) -> list[str]:
    """The text of every tool result a request carries, in OpenAI's or Anthropic's format."""
    found = []
    for message in messages:
        if message.get("role") == "tool":
            found.append(message["content"])
        for block in message["content"] if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                found.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return found


def tool_names(request: dict) -> list[str]:
    """The tools a request defines, in OpenAI's (`function.name`) or Anthropic's (`name`) format."""
    return [t["function"]["name"] if "function" in t else t["name"] for t in request.get("tools") or []]


@pytest.mark.parametrize("model", ["gpt", "claude"])
async def test_the_model_recalls_a_folded_fact_and_answers_with_it(servers, tmp_path, monkeypatch, model):
    fake = servers[model]
    fake.script = ["tool", "ok"]
    fake.tool_calls = [("recall", json.dumps({"query": "blue pier"}))]
    fake.reply = ANSWER
    with open_folded(servers, tmp_path, monkeypatch, model) as session:
        events = [event async for event in session.reply()]

        first, second = fake.requests
        assert tool_names(first) == tool_names(second) == ["recall"]
        assert any(FERRY in text for text in tool_texts(second["messages"]))
        assert not tool_texts(first["messages"]) and fake.rejected == []

        calling = next(e for e in events if isinstance(e, ToolCalling))
        answered = next(e for e in events if isinstance(e, ToolCallsAnswered))
        assert [c.name for c in calling.calls] == ["recall"] and answered.more
        assert isinstance(events[-1], Finished) and events[-1].message.text == ANSWER

        *_, call, result, reply = session.context.transcript()
        arguments = json.loads(call.message.tool_calls[0].arguments)
        assert call.id == answered.call_id and arguments == {"query": "blue pier"}
        assert result.message.role == "tool" and result.message.tool_call_id == call.message.tool_calls[0].id
        assert FERRY in result.message.text and result.message.text.startswith("[message 2, assistant,")
        assert (reply.message.text, reply.status, session.replies.reply_id) == (ANSWER, "complete", reply.id)
        assert violations(session.context.messages()) == []


async def test_a_call_to_an_unknown_tool_gets_an_error_result_and_the_reply_goes_on(servers, tmp_path, monkeypatch):
    fake = servers["gpt"]
    fake.script = ["tool", "ok"]
    fake.tool_calls = [("search_web", '{"q": "ferry"}'), ("recall", "{not json")]
    with open_folded(servers, tmp_path, monkeypatch, "gpt") as session:
        events = [event async for event in session.reply()]
        assert isinstance(events[-1], Finished) and events[-1].message.text == fake.reply
        unknown, garbled = tool_texts(fake.requests[1]["messages"])
        assert unknown.startswith("error: there is no tool named 'search_web'")
        assert garbled.startswith("error: recall's arguments are not valid JSON")
        assert fake.rejected == [] and violations(session.context.messages()) == []


@pytest.mark.parametrize("model", ["gpt", "claude"])
async def test_recall_rounds_are_bounded_and_the_last_request_offers_no_tools(servers, tmp_path, monkeypatch, model):
    fake = servers[model]
    fake.script = ["tool"]  # a model that never stops calling
    fake.tool_calls = [("recall", '{"message": 2}')]
    with open_folded(servers, tmp_path, monkeypatch, model) as session:
        events = [event async for event in session.reply()]
        assert len(fake.requests) == MAX_TOOL_ROUNDS + 1
        # (for Anthropic, litellm defines a `dummy_tool` in the last one: its API wants tools with tool blocks)
        assert ["recall" in tool_names(r) for r in fake.requests] == [True] * MAX_TOOL_ROUNDS + [False]
        rounds = [e for e in events if isinstance(e, ToolCallsAnswered)]
        assert [r.more for r in rounds] == [True] * MAX_TOOL_ROUNDS + [False]
        assert rounds[0].results[0][1].text.startswith("[message 2, assistant,")
        assert rounds[-1].results[0][1].text == NOT_OFFERED
        # told no tool is offered, it called again: the reply ends with the reason, not a silent empty answer
        assert isinstance(events[-1], Failed) and "called a tool again instead of answering" in events[-1].error
        assert session.context.transcript()[-1].message.role == "tool"
        assert fake.rejected == [] and violations(session.context.messages()) == []


async def test_no_tools_when_recall_is_off(servers, tmp_path, monkeypatch):
    with open_folded(servers, tmp_path, monkeypatch, "gpt", recall=False) as session:
        [event async for event in session.reply()]
        assert "tools" not in servers["gpt"].requests[-1]


async def test_no_tools_for_a_model_litellm_does_not_know_to_call_functions(servers, tmp_path, monkeypatch):
    with open_folded(servers, tmp_path, monkeypatch, "plain") as session:
        events = [event async for event in session.reply()]
        assert isinstance(events[-1], Finished)
        assert "tools" not in servers["plain"].requests[-1]


async def test_no_tools_before_anything_is_folded(servers, tmp_path, monkeypatch):
    with open_folded(servers, tmp_path, monkeypatch, "gpt") as session:
        session.undo_fold(session.context.active_fold().id)
        [event async for event in session.reply()]
        assert "tools" not in servers["gpt"].requests[-1]


async def test_the_local_model_is_never_offered_tools(servers, tmp_path, monkeypatch):
    """Marked local, even a model litellm says calls functions gets no `tools` (the embedded one cannot)."""
    with open_folded(servers, tmp_path, monkeypatch, "gpt") as session:
        assert session.replies.offered_tools(session.target) is not None  # the same model, hosted, gets recall
        local = replace(session.target, backend=EMBEDDED)
        events = [event async for event in session.replies.reply(local)]
        assert isinstance(events[-1], Finished) and not any(isinstance(e, ToolCalling) for e in events)
        assert "tools" not in servers["gpt"].requests[-1]
        assert session.context.transcript()[-1].message.text == servers["gpt"].reply


@pytest.mark.parametrize("model", ["gpt", "claude"])
async def test_a_tool_call_when_none_was_offered_is_answered_and_the_model_asked_again(
    servers, tmp_path, monkeypatch, model
):
    fake = servers[model]
    fake.script = ["tool", "ok"]  # calls recall although nothing is folded, then answers
    with open_folded(servers, tmp_path, monkeypatch, model) as session:
        session.undo_fold(session.context.active_fold().id)
        events = [event async for event in session.reply()]
        assert [r.results[0][1].text for r in events if isinstance(r, ToolCallsAnswered)] == [NOT_OFFERED]
        assert isinstance(events[-1], Finished) and events[-1].message.text == fake.reply
        assert len(fake.requests) == 2 and fake.rejected == []


@pytest.mark.parametrize("model", ["gpt", "claude"])
async def test_a_model_that_only_calls_tools_when_none_is_offered_fails_with_the_reason(
    servers, tmp_path, monkeypatch, model
):
    servers[model].script = ["tool"]
    with open_folded(servers, tmp_path, monkeypatch, model) as session:
        session.undo_fold(session.context.active_fold().id)
        events = [event async for event in session.reply()]
        assert isinstance(events[-1], Failed) and "instead of answering" in events[-1].error
        assert len(servers[model].requests) == 2


NOTES = " ".join(
    f"Day {day}: we walk from the hostel on Rua {day} to the viewpoint number {day * 7}, lunch at the tasca "
    f"with the {['green', 'red', 'blue'][day % 3]} door, and the tram {day + 10} back before {day % 12 + 1} pm."
    for day in range(1, 120)
)  # ~4k tokens of an assistant's itinerary, folded away on a 4k window
LONG_HISTORY = [
    {"role": "user", "content": "Write out the whole itinerary, day by day."},
    {"role": "assistant", "content": NOTES},
    *HISTORY,
]


def request_tokens(request: dict) -> int:
    import litellm

    return litellm.token_counter(model="gpt-4o", messages=request["messages"])


@pytest.mark.parametrize(
    ("calls", "rounds"),
    [
        ([("recall", '{"message": 2}')], 3),  # three rounds of the longest documented answer
        ([("recall", '{"query": "tram viewpoint tasca"}')] * 200, 1),  # 200 parallel calls
        ([("recall", json.dumps({"query": "tram " * 200_000}))], 1),  # a 1 MB query
    ],
    ids=["three-rounds", "200-calls", "1MB-query"],
)
async def test_every_request_of_a_reply_fits_the_window_tool_rounds_included(
    servers, tmp_path, monkeypatch, calls, rounds
):
    fake = servers["gpt"]
    fake.script = ["tool"] * rounds + ["ok"]
    fake.tool_calls = calls
    with open_folded(servers, tmp_path, monkeypatch, "gpt", window=4_000, history=LONG_HISTORY) as session:
        reserve = session.registry.reserved_output(session.target)
        events = [event async for event in session.reply()]
        assert isinstance(events[-1], Finished) and events[-1].message.text == fake.reply
        sizes = [request_tokens(r) for r in fake.requests]
        assert max(sizes) + reserve <= 4_000, sizes
        assert max(len(json.dumps(r)) for r in fake.requests) < 64_000
        for event in events:  # each answer is bounded, whatever was asked
            if isinstance(event, ToolCallsAnswered):
                assert all(len(result.text) <= 4_200 for _, result in event.results)
        assert fake.rejected == [] and violations(session.context.messages()) == []


async def test_a_context_over_the_window_is_never_sent(servers, tmp_path, monkeypatch):
    with open_folded(servers, tmp_path, monkeypatch, "gpt") as session:
        narrow = replace(session.target, window=300)  # what a fold that could not shrink it would leave
        events = [event async for event in session.replies.reply(narrow)]
        assert isinstance(events[-1], Failed) and "over gpt's 300-token window" in events[-1].error
        assert servers["gpt"].requests == [] and session.replies.reply_id is None
