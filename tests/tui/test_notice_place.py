"""Where notices appear: under the status line, clear of the composer and the gauge's "turns left"."""

from __future__ import annotations

from foldchat.tui.widgets.gauge import ContextGauge
from textual.widgets._toast import Toast

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready


async def test_a_notice_leaves_the_gauge_and_the_composer_in_view(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # run_test hides toasts by default
        await ready(pilot)
        app.notify("Folded 21,314 → 2,972 tokens", title="Folded")
        toast = (await wait_for(pilot, lambda: list(app.screen.query(Toast))))[0]
        gauge = chat(app).query_one(ContextGauge)
        assert toast.region.bottom <= app.size.height // 2 < gauge.region.y
