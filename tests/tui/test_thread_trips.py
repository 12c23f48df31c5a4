"""A send hands its prompt to the engine's turn: one trip to a thread for the prompt (checked, stored, the
gauge's usage read with it), and none after the turn's end, whose event carries what the screen shows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from foldchat.engine import FoldEvent, ReplyAsked, TurnEnded

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, send

TURN_ENDED = "<TurnEnded>"
REPLY_ASKED = "<ReplyAsked>"
FOLD_STEP = "<fold>"


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


async def test_a_send_makes_one_thread_trip_for_its_prompt_and_none_after_the_end(app_factory, fake, monkeypatch):
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        await send(pilot, "a first question")  # what a first send loads once is not what this counts
        await wait_for(pilot, lambda: not screen.conversation.reply_underway())
        await pilot.pause(0.3)
        trips: list[str] = []
        thread = asyncio.to_thread

        async def counted(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
            trips.append(_name(function))
            return await thread(function, *args, **kwargs)

        session = screen.session
        turn = session.turn

        async def marked(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            async for event in turn(*args, **kwargs):
                if isinstance(event, ReplyAsked):
                    trips.append(REPLY_ASKED)
                elif isinstance(event, TurnEnded):
                    trips.append(TURN_ENDED)
                elif isinstance(event, FoldEvent):
                    trips.append(FOLD_STEP)
                yield event

        composer = screen.composer
        composer.text = "a second question"
        await wait_for(pilot, lambda: screen.gauge_state.typing > 0)  # typed and counted: not the send's
        monkeypatch.setattr(asyncio, "to_thread", counted)
        monkeypatch.setattr(session, "turn", marked)
        await pilot.press("enter")
        await wait_for(pilot, lambda: TURN_ENDED in trips and not screen.conversation.reply_underway())
        await pilot.pause(0.5)  # what the screen does after the end (its "turn" workers) is done by now
        before_reply = trips[: trips.index(REPLY_ASKED)]
        # the policy's fold check is the fold's own trip, not the prompt's
        for_prompt = [t for t in before_reply if "_in_thread" not in t and t != FOLD_STEP]
        assert len(for_prompt) == 1, trips
        after_end = trips[trips.index(TURN_ENDED) + 1 :]
        assert after_end == [], trips
