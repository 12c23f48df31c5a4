"""The app starts on the chat screen itself (issue 12, first paint)."""

from __future__ import annotations

from foldchat.tui.screens.chat import ChatScreen


async def test_the_chat_screen_is_the_first_screen_and_styled_by_its_own_css(app_factory):
    """Pushed over Textual's blank default screen, the chat screen cost a second styling of the whole app
    and a layout of two screens before the first frame (~70 ms of a 0.33 s start, issue 12). As the
    default screen its CSS must come with the app's: the fold bar hidden, the status line one row."""
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        (only,) = app.screen_stack
        assert isinstance(only, ChatScreen) and only is app.get_screen("chat")
        assert only.query_one("#fold-progress").styles.display == "none"
        assert only.query_one("#status").size.height == 1
        assert only.query_one("#suggestions").styles.max_height is not None
