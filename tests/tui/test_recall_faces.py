"""Recall in the app: the model's recall call and its answer show in the transcript as a tool
call and its result, literally, followed by the reply that uses them."""

from __future__ import annotations

import json

from foldchat.engine import OpenOptions, Workspace
from foldchat.engine.config import ModelAlias
from foldchat.engine.messages import parse_messages
from foldchat.tui.app import AppOptions, make_app
from foldchat.tui.widgets.fold_marker import FoldMarker
from foldchat.tui.widgets.message import MessageView
from textual.widgets import Collapsible, Static

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import chat, send

FERRY = "Good question. The ferry leaves from the blue pier behind the fish market, the one with the green clock."
ANSWER = "It leaves from the blue pier behind the fish market."


def recall_app(fake, tmp_path, monkeypatch, arguments: str):
    """The app on a conversation about a ferry, talking to a model that calls tools (the fake), with
    `recall` calls answering `arguments`."""
    from trajectories import everyday_chat

    monkeypatch.setenv("FAKE_KEY", "sk-test")
    gpt = ModelAlias(model="openai/gpt-4o", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=16_000)
    settings = settings_for(fake).model_copy(update={"summarizer": "rules", "default_model": "gpt"})
    settings.models["gpt"] = gpt
    history = [{"role": "user", "content": "Where does the Lisbon ferry leave from?"},
               {"role": "assistant", "content": FERRY}, *everyday_chat(10)[0]]  # fmt: skip
    with Workspace.open(OpenOptions(settings=settings, database=tmp_path / "recall.db")) as workspace:
        conversation = workspace.store.create_conversation(title="trip", model="gpt")
        for message in parse_messages(history):
            workspace.store.append(conversation, message)
    fake.script, fake.tool_calls, fake.reply = ["tool", "ok"], [("recall", arguments)], ANSWER
    return make_app(AppOptions(settings=settings, database=tmp_path / "recall.db", conversation=conversation))


async def folded(pilot) -> None:
    screen = chat(pilot.app)
    await wait_for(pilot, lambda: screen.model_ready, timeout=90)
    await send(pilot, "/resummarize")
    await wait_for(pilot, lambda: list(screen.query(FoldMarker)))


async def test_a_recall_round_shows_as_a_tool_call_and_its_result(fake, tmp_path, monkeypatch):
    # the model's arguments carry markup: shown as typed, never obeyed
    arguments = json.dumps({"query": "blue pier", "note": "[bold red]x[/]"})
    app = recall_app(fake, tmp_path, monkeypatch, arguments)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = chat(app)
        await folded(pilot)
        fake.script = ["tool", "ok"]  # the fold is local (rules): the model is asked only from here on

        await send(pilot, "Where did you say the ferry leaves from?")
        answer = await wait_for(pilot, lambda: _last(screen, "assistant", ANSWER))
        views = list(screen.query(MessageView))
        call, result = views[views.index(answer) - 2 : views.index(answer)]

        assert call.data.role == "assistant" and call.data.tool_calls == (("recall", arguments),)
        stored = {m.id: m for m in screen.backend.context.transcript()}
        assert stored[call.data.id].message.tool_calls[0].arguments == arguments
        title = call.query_one(Collapsible).title
        assert str(title) == f"→ recall({arguments})"  # literally, markup and all
        assert result.data.role == "tool" and result.data.tool_name == "recall" and "· recall" in result.header_text()
        assert FERRY in result.data.text and result.data.id in stored
        assert FERRY in str(result.query_one(Collapsible.Contents).query_one(Static).render())
        assert answer.data.status == "complete" and answer.data.id == screen.backend.replies.reply_id
        assert "tools" in fake.requests[-1] and fake.requests[-1]["messages"][-1]["role"] == "tool"


async def test_a_model_that_calls_tools_past_the_last_round_ends_the_reply_with_the_reason(fake, tmp_path, monkeypatch):
    """After the last round the request offers no tools; a model that calls one anyway gets an error result
    and the turn ends there, saying why (it ended in tool rows and no reply at all, as if nothing was wrong).
    The app asked for a streaming view for a reply that never came: a crash of the reply worker."""
    arguments = json.dumps({"query": "blue pier"})
    app = recall_app(fake, tmp_path, monkeypatch, arguments)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = chat(app)
        await folded(pilot)
        fake.script = ["tool"]  # every request, the last one (no tools offered) too
        failures: list[str] = []
        notify = app.notify
        app.notify = lambda message, *a, **k: (failures.append(str(message)) if k.get("severity") == "error"
                                                else None, notify(message, *a, **k))[1]  # fmt: skip
        await send(pilot, "Where did you say the ferry leaves from?")
        await wait_for(pilot, lambda: not screen.conversation.reply_underway() and len(fake.requests) >= 4)
        await pilot.pause(0.2)
        assert len(failures) == 1 and "called a tool again instead of answering" in failures[0]
        assert "tools" not in fake.requests[-1]  # the last request offered none
        calls = [v for v in screen.query(MessageView) if v.data.role == "assistant" and v.data.tool_calls]
        assert len(calls) == 4 and all(v.data.status == "complete" for v in calls)
        assert screen.query(MessageView).last().data.role == "tool"
        assert not [v for v in screen.query(MessageView) if v.data.status == "streaming"]


def _last(screen, role: str, text: str) -> MessageView | None:
    views = [v for v in screen.query(MessageView) if v.data.role == role]
    done = views and views[-1].data.text.strip() == text and views[-1].data.status == "complete"
    return views[-1] if done else None
