"""The fold inspector's keys: typing a word while it is open is not a string of its actions."""

from __future__ import annotations

from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.widgets.composer import Composer

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send


async def test_a_word_typed_in_the_inspector_goes_to_the_composer_and_its_actions_have_ctrl_keys(app_factory, fake):
    """Its actions were letters: "every" typed while it was open opened the snapshot's editor at its e,
    and the rest of the word went into the snapshot, not the message being written."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(3):
            await send(pilot, f"Booking BK-{n}1234 in Porto: " + "what to see near the river? " * 150)
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: screen.backend.context.active_fold())
        await send(pilot, "/folds")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        editor_text = inspector.query_one("#editor").text

        await pilot.press(*"every rule, undo, open, preview")
        assert app.screen is inspector
        assert not {"-editing", "-refolding", "-dropping", "-opening"} & set(inspector.classes)
        assert inspector.query_one("#editor").text == editor_text
        assert "typing goes on in the composer" in str(inspector.query_one("#inspector").border_subtitle)

        await pilot.press("ctrl+e")  # its actions are on keys that are not typed
        assert inspector.has_class("-editing")
        hint = str(inspector.query_one("#inspector").border_subtitle)
        assert "typing edits the snapshot" in hint and "composer" not in hint  # it said the composer there
        await pilot.press("escape")
        assert "typing goes on in the composer" in str(inspector.query_one("#inspector").border_subtitle)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.query_one(Composer).text == "every rule, undo, open, preview"
