"""The gauge, the model picker and the switch notice state the same numbers for the same conversation, and
reopening it states them again (issue 44, "the numbers disagree": the picker said `fits (4,214)`, the
reply's reserve added, where the gauge said 3,190; turns left changed across a restart)."""

from __future__ import annotations

from foldchat.engine import turns_words
from foldchat.tui.screens.model_picker import ModelChoice, ModelPicker
from foldchat.tui.widgets.gauge import ContextGauge

from tui.conftest import wait_for
from tui.test_chat_flows import chat, gauge, ready, send

PASTE = "Here is the log I mentioned: " + "lorem ipsum dolor sit amet " * 120
SIZE = (160, 40)  # the gauge's long form: "3,190 / 16,000 (20%) · fold at … · ≈ 12 turns left"


def gauge_line(screen) -> str:
    return str(screen.query_one(ContextGauge).render())


async def talk(pilot) -> None:
    """The issue's shape: a long paste, then short questions."""
    await send(pilot, PASTE)
    for n in range(3):
        await send(pilot, f"And what about case {n}?")


async def picker_rows(pilot) -> dict[str, ModelChoice]:
    await send(pilot, "/model")
    picker = await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelPicker) and pilot.app.screen)
    await wait_for(pilot, lambda: picker.choices)
    return {c.name: c for c in picker.choices}


def said_by_gauge(screen) -> str:
    """What the gauge says of the conversation, as the picker and the notice say it."""
    state = gauge(screen)
    assert state.turns_left is not None and state.turns_left > 0
    line = gauge_line(screen)
    assert f" {state.tokens:,} / {state.window:,} (" in line and f" · {turns_words(state.turns_left)} · " in line
    return f"fits ({state.tokens:,} · {turns_words(state.turns_left)})"


async def test_the_gauge_the_picker_and_the_switch_notice_state_the_same_numbers(app_factory, fake):
    app = app_factory()  # fake: a 16,000-token window; fake-small: 4,000, the same tokenizer
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = chat(app)
        await talk(pilot)
        here = said_by_gauge(screen)
        rows = await picker_rows(pilot)
        assert rows["fake"].fit == here  # the row of the model in use says what the gauge says
        there = rows["fake-small"].fit
        assert there.startswith("fits (") and there != here  # a smaller window: fewer turns left
        app.screen.dismiss("fake-small")
        await wait_for(pilot, lambda: gauge(screen).window == 4000)
        await ready(pilot)
        notices = [str(n.message) for n in app._notifications if n.title == "Model switched"]
        assert notices == [f"fake-small (4,000-token window): the conversation {there}"]
        assert said_by_gauge(screen) == there  # and the gauge, on the new model, says it too


async def test_a_reopened_conversation_states_the_same_turns_left(app_factory, fake):
    app = app_factory(window=4000)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = chat(app)
        await talk(pilot)
        before = said_by_gauge(screen)
        line = gauge_line(screen)
    app = app_factory(window=4000)  # the same database
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = chat(app)
        await wait_for(pilot, lambda: gauge(screen).tokens > 0)
        assert said_by_gauge(screen) == before
        assert gauge_line(screen) == line
        rows = await picker_rows(pilot)
        assert rows["fake"].fit == before
