"""Standing rules in the app: the inspector lists the user's standing rules; Ctrl+D drops one."""

from __future__ import annotations

from foldchat.tui.screens.fold_inspector import FoldInspector, snapshot_markdown
from foldchat.tui.screens.fold_preview import FoldPreview, preview_markdown
from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send


async def test_the_inspector_lists_rules_and_x_drops_one(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "From now on, answer in German. Call me Sam. " + "Plan a week in Porto, please. " * 120)
        for n in range(2):
            await send(pilot, f"Day {n}: " + "what about the museums and the river walk? " * 120)
        await send(pilot, "/resummarize")
        marker = await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        marker[0].focus()
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        assert inspector.view.rules == ["From now on, answer in German. (#1)", "Call me Sam. (#1)"]
        shown = snapshot_markdown(inspector.view)
        constraints = (
            shown.split("constraints and preferences")[1].split("###")[0] if "constraints and" in shown else ""
        )
        assert (
            "Call me Sam" not in constraints
        )  # numbered once above, not listed again under constraints  # numbered once, not listed again under constraints
        assert inspector.view.number == 1  # the conversation's first fold, whatever the store's id
        await pilot.press("ctrl+t")  # the preview of a re-fold shows the rules the same way, once and numbered
        preview = await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview) and app.screen)
        shown = preview_markdown(preview.plan)
        assert "### your standing rules" in shown and "1\\. From now on, answer in German" in shown
        assert "Call me Sam" not in shown.split("constraints and preferences")[-1].split("###")[0]
        await pilot.press("escape")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        await pilot.press("ctrl+d")
        inspector.query_one("#drop").value = "2"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        session = screen.backend
        await wait_for(
            pilot,
            lambda: (
                session.chain.standing_rules(session.context.active_fold()) == ["From now on, answer in German. (#1)"]
            ),
        )
