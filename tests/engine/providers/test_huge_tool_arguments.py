"""A tool call whose arguments hold a number past Python's 4,300-digit limit (a model's `recall` with
`{"message": 9…9}`): stored as the model sent it, and every later request still goes out, through litellm,
to loopback servers that speak OpenAI's and Anthropic's wire formats. litellm's Anthropic adapter parses the
stored arguments itself: the request failed as "rejected" though nothing was ever sent."""

from __future__ import annotations

import json

import pytest
from foldchat.engine import Finished
from foldchat.engine.invariants import violations
from test_recall_tool import open_folded, servers  # noqa: F401 - the fixture is used by name

HUGE = '{"message": ' + "9" * 5000 + "}"


@pytest.mark.parametrize("model", ["gpt", "claude"])
async def test_a_5000_digit_number_in_a_stored_tool_call_never_stops_a_conversation(
    servers,  # noqa: F811 - the fixture, imported above
    tmp_path,
    monkeypatch,
    model,
):
    fake = servers[model]
    fake.script = ["tool", "ok"]
    fake.tool_calls = [("recall", HUGE)]
    with open_folded(servers, tmp_path, monkeypatch, model) as session:
        events = [event async for event in session.reply()]
        assert isinstance(events[-1], Finished), events[-1]
        call = next(m.message for m in session.context.transcript() if m.message.tool_calls)
        assert call.tool_calls[0].arguments == HUGE  # stored as the model sent it
        session.add_user_message("and one more question")
        events = [event async for event in session.reply()]  # a later ask in the same conversation
        assert isinstance(events[-1], Finished), events[-1]
        assert len(fake.requests) == 3 and fake.rejected == []
        sent = json.dumps(fake.requests[-1])
        assert "9" * 5000 in sent  # the number reaches the model, as digits
        assert violations(session.context.messages()) == []
