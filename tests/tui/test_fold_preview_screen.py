"""Fold preview in the app: /resummarize --preview shows the fold; Esc discards it, Enter applies it."""

from __future__ import annotations

from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.screens.fold_preview import FoldPreview
from foldchat.tui.widgets.fold_marker import FoldMarker
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send


async def test_preview_then_discard_then_apply_the_exact_result(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(4):
            await send(pilot, f"Booking BK-{n}1234 in Porto on 2026-05-1{n}: " + "what to see near the river? " * 150)
        await send(pilot, "/resummarize --preview the bookings")
        preview = await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview) and app.screen)
        assert preview.plan.report.compressed and "Would fold" in str(preview.query_one("#summary").render())
        assert "Apply this fold" in {b.binding.description for b in preview.active_bindings.values()}
        assert preview.query(Footer)  # its own keys shown, not the chat's ("Stop reply", "Regenerate")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.backend.context.active_fold() is None and not screen.query(FoldMarker)

        await send(pilot, "/resummarize --preview")
        preview = await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview) and app.screen)
        planned = preview.plan.snapshot
        await pilot.press("enter")
        await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        stored = screen.backend.chain.snapshot_of(screen.backend.context.active_fold())
        assert stored.user_requests == planned.user_requests  # exactly the previewed result

        screen.query_one(FoldMarker).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector))
        await pilot.press("ctrl+t")  # the inspector's Preview action
        await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview))
        await pilot.press("escape")  # backs out one level: to the inspector it came from, not the chat
        await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector))


async def test_a_preview_of_nothing_to_fold_offers_nothing_to_apply(app_factory, fake):
    """It said "Enter applies this fold" over "Nothing would fold", and closing it said it was discarded."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "just one question")
        await send(pilot, "/resummarize --preview")
        preview = await wait_for(pilot, lambda: isinstance(app.screen, FoldPreview) and app.screen)
        summary = str(preview.query_one("#summary").render())
        assert "Nothing would fold" in summary and "Enter applies" not in summary and "Esc closes" in summary
        await pilot.pause()
        offered = [str(key.description) for key in preview.query(FooterKey)]
        assert "Discard" in offered and "Apply this fold" not in offered  # the footer offered it too
        await pilot.press("enter")  # does nothing: still open
        assert app.screen is preview
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        told = [n.message for n in app._notifications]
        assert any(str(t).startswith("Nothing folded: ") for t in told) and not any("discarded" in str(t) for t in told)
