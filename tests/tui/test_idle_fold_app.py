"""The app folds unasked once the conversation has been idle past the provider's prompt-cache lifetime and
the engine says a fold is due then (engine/autofold.py `idle_fold_due`; tested there); a new turn re-arms
the wait, and a draft in the composer holds it back."""

from __future__ import annotations

from foldchat.tui import idle_fold
from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, send


async def test_an_idle_conversation_is_folded_when_the_engine_says_it_is_due(app_factory, fake, monkeypatch):
    monkeypatch.setattr(idle_fold, "CHECK_AFTER", 0.5)
    asked: list[float] = []
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        monkeypatch.setattr(screen.session.auto, "idle_fold_due", lambda idle: asked.append(idle) or True)
        for n in range(4):
            await send(pilot, f"question {n}: " + "tell me about the ferry times and the museums " * 20)
        await wait_for(pilot, lambda: screen.query(FoldMarker))
        assert asked and asked[0] >= 0.5  # asked once the wait after the last turn was over
        await wait_for(pilot, lambda: any("Folded while idle" in str(n.message) for n in app._notifications))


async def test_a_draft_in_the_composer_holds_the_idle_fold_back(app_factory, fake, monkeypatch):
    monkeypatch.setattr(idle_fold, "CHECK_AFTER", 0.3)
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        monkeypatch.setattr(screen.session.auto, "idle_fold_due", lambda idle: True)
        await send(pilot, "question: " + "tell me about the ferry times and the museums " * 20)
        screen.query_one("Composer").text = "half a thought"
        await pilot.pause(1.0)
        assert not screen.query(FoldMarker)
