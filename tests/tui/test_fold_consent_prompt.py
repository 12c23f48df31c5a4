"""Consent to fold, in the app: /fold ask makes the gauge line ask before an automatic fold."""

from __future__ import annotations

from foldchat.tui.screens.fold_consent import FoldConsent
from foldchat.tui.widgets.fold_marker import FoldMarker

from tui.conftest import wait_for
from tui.test_chat_flows import LONG, chat, ready, replies, send


async def fill_until_asked(pilot, screen) -> FoldConsent:
    for n in range(8):
        screen.query_one("Composer").text = f"{n} {LONG}"
        screen.query_one("Composer").focus()
        count = len(replies(screen))
        await pilot.press("enter")

        def asked_or_answered(count: int = count) -> object:
            if isinstance(pilot.app.screen, FoldConsent):
                return pilot.app.screen
            return len(replies(screen)) > count and replies(screen)[-1].data.status != "streaming"

        asked = await wait_for(pilot, asked_or_answered)
        if isinstance(asked, FoldConsent):
            return asked
    raise AssertionError("never asked")


async def test_ask_waits_for_yes_and_not_now_sends_without_folding(app_factory, fake):
    app = app_factory(window=4000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "/fold ask")
        assert screen.backend.auto.mode == "ask"
        consent = await fill_until_asked(pilot, screen)
        assert "fold now? it would save about" in consent.question
        await pilot.press("escape")  # not now: the reply goes out unfolded
        await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete" and app.screen is screen)
        assert not screen.query(FoldMarker) and screen.backend.context.active_fold() is None

        consent = await fill_until_asked(pilot, screen)  # grown enough (or over the window): asked again
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        assert screen.backend.context.active_fold() is not None


async def test_the_question_fits_80_columns_and_typed_text_is_neither_an_answer_nor_lost(app_factory, fake):
    """It comes up just after Enter, when people type on: "yesterday" once folded through its y, and
    "one more thing" declined through its n, the rest of the text gone."""
    from foldchat.tui.widgets.composer import Composer
    from textual.widgets import Static

    app = app_factory(window=4000)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "/fold ask")
        consent = await fill_until_asked(pilot, screen)
        question = consent.query_one("#question", Static)
        assert question.region.right <= 80 and question.region.height >= 1
        assert "fold now?" in str(question.render())
        await pilot.press(*"yesterday and one more thing", "enter")
        assert app.screen is consent  # no answer taken from the text, nor from the Enter after it
        assert screen.query_one(Composer).text == "yesterday and one more thing"
        assert screen.backend.context.active_fold() is None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.query_one(Composer).text == "yesterday and one more thing"


async def test_backspace_a_paste_and_enter_typed_while_asked_are_the_composers(app_factory, fake):
    """Letters reached the composer, but Backspace, a paste and Enter typed while the question is up were
    lost. Each goes to the composer now, except the question's own keys; Enter does what it does while a
    reply is on its way (the question is part of the turn): the message stays in the composer, said so."""
    from foldchat.tui.widgets.composer import Composer
    from textual import events

    app = app_factory(window=4000)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "/fold ask")
        consent = await fill_until_asked(pilot, screen)
        composer = screen.query_one(Composer)
        await pilot.press(*"yesterdya", "backspace", "backspace", *"ay")
        app.post_message(events.Paste(" and the logs"))  # as the terminal's driver sends it
        await pilot.pause()
        assert composer.text == "yesterday and the logs"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is consent  # Enter answers nothing: only Ctrl+F and Esc do
        assert composer.text == "yesterday and the logs"
        assert any("One message at a time" in n.title for n in app._notifications)
        await pilot.press("escape")
        await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete" and app.screen is screen)
        assert composer.text == "yesterday and the logs" and screen.backend.context.active_fold() is None
