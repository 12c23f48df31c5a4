"""The status line follows the reply: once words arrive it says the model is replying, not "waiting for
the model… 9 s" frozen until the reply ends."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, replies


async def test_the_status_line_stops_saying_waiting_once_the_reply_streams(app_factory, fake):
    fake.script = ["held"]
    fake.hold_after = 0  # nothing until the gate opens: the status line shows the wait
    fake.answer_gate.clear()
    fake.pace = 0.5  # then a word every half second: the reply streams for a while
    app = app_factory(request_timeout=30)
    async with ready_chat(app, (120, 30)) as (pilot, screen):
        composer = screen.query_one(Composer)
        composer.text = "a question"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "waiting for the model… " in screen.status)  # past the first second
        fake.answer_gate.set()
        await wait_for(pilot, lambda: replies(screen) and replies(screen)[-1].data.text.strip())
        await pilot.pause(0.3)
        assert "waiting" not in screen.status and "replying" in screen.status, screen.status
        assert replies(screen)[-1].data.status == "streaming"
        await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete")
        await wait_for(pilot, lambda: "replying" not in screen.status)  # the model's name again, at the end
