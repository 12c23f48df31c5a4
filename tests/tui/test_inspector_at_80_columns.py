"""The fold inspector at 80 columns: its facts line wraps (it ended "· rules · t") and the standing rules'
key is in a paragraph that wraps, not in a heading cut at "…in every fold; Ctrl+D"."""

from __future__ import annotations

from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send
from tui.test_header_at_80_columns import drawn


async def test_the_inspectors_facts_and_rules_key_are_not_cut_at_80_columns(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(80, 50)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "From now on, answer in German. " + "Plan a week in Porto, please. " * 60)
        await send(pilot, "Day 2: " + "what about the museums and the river walk? " * 60)
        await send(pilot, "/resummarize")
        marker = await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        marker[0].focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector))
        await pilot.pause()
        shown = " ".join(drawn(app).split())  # wrapped lines joined: what matters is that nothing is lost
        assert "trigger" in shown and "manual" in shown, shown  # wrapped inside the box, not cut at its edge
        assert "Ctrl+D drops one" in shown, shown
