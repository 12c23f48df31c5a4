"""Background pre-fold in the app: past the reset ratio a worker prepares the next fold; at the trigger the
fold marker appears with that plan, without waiting for the (slow) summarizer again."""

from __future__ import annotations

import json

from foldchat.tui.app import AppOptions, make_app
from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import chat, ready, send

REQUEST = "Day {n}: book room BK-{code} for Ana Ruiz near the river. " + "We like quiet streets. " * 40


async def settled(pilot, screen) -> None:
    """The reply, its fold check and any pre-fold it started are all done."""
    busy = ("reply", "fold", "prefold")
    await wait_for(pilot, lambda: not any(w.group in busy and not w.is_finished for w in screen.workers))


def summarizer_calls(fake) -> int:
    return sum(1 for body in fake.requests if not body.get("stream"))


async def test_the_fold_marker_appears_at_the_trigger_with_the_prepared_plan(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    fake.reply = json.dumps({"overall_goal": "Plan the rooms", "decisions": ["Casa Rio"]})
    settings = settings_for(fake, 4000).model_copy(update={"summarizer": "llm"})
    app = make_app(AppOptions(settings=settings, database=tmp_path / "tui.db"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        session = screen.backend
        n = 0
        while not session.auto.prefold.waiting:  # each reply ends with the pre-fold check
            assert not screen.query(FoldMarker) and n < 12
            await send(pilot, REQUEST.format(n=n, code=1000 + n))
            await settled(pilot, screen)
            n += 1
        prepared = summarizer_calls(fake)
        assert prepared >= 1
        fake.answer_delay = 60  # from now on the summarizer is too slow for the marker to wait for it
        while not screen.query(FoldMarker):
            assert n < 20
            await send(pilot, REQUEST.format(n=n, code=1000 + n))
            n += 1
        marker = (await wait_for(pilot, lambda: list(screen.query(FoldMarker))))[0]
        fold = session.context.active_fold()
        assert summarizer_calls(fake) == prepared  # the marker came from the prepared plan
        assert fold.summarizer == "llm:fake" and str(marker.render()).startswith("⟨ Folded ")
        assert fold.tokens_after + session.usage().reserved <= session.usage().target
        fake.release()  # nothing should be waiting on it, but never leave a request hanging
