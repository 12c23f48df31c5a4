"""How the app starts: on the chat screen itself, and with its start-up heap frozen (no collection stalls)."""

from __future__ import annotations

import gc

from foldchat.tui.screens.chat import ChatScreen

from tui.conftest import wait_for


async def test_the_chat_screen_is_the_first_screen_and_styled_by_its_own_css(app_factory):
    """Pushed over Textual's blank default screen, the chat screen cost a second styling of the whole app
    and a layout of two screens before the first frame (~70 ms of a 0.33 s start). As the
    default screen its CSS must come with the app's: the fold bar hidden, the status line one row."""
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        (only,) = app.screen_stack
        assert isinstance(only, ChatScreen) and only is app.get_screen("chat")
        assert only.query_one("#fold-progress").styles.display == "none"
        assert only.query_one("#status").size.height == 1
        assert only.query_one("#suggestions").styles.max_height is not None


async def test_what_is_loaded_by_the_time_the_model_is_ready_is_left_out_of_collections(app_factory):
    """A full collection walked every object of Textual, the engine and litellm: ~60 ms on the UI thread
    every few turns. Once the model is ready they are frozen (gc.freeze)."""
    gc.unfreeze()
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.get_screen("chat").model_ready, timeout=90)
        assert gc.get_freeze_count() > 10_000
