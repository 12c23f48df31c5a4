"""The `Conversation` widget on its own, in an app of the test's that is not the chat screen: what Enter does
with a command and with a prompt typed before any session, and what it posts up. The chat screen is only its
first host; these are the messages any host gets."""

from __future__ import annotations

from foldchat.tui.conversation import Conversation
from foldchat.tui.slash import completions
from foldchat.tui.widgets.attachment_tray import AttachmentTray
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.transcript import Transcript
from textual.app import App, ComposeResult
from textual.widgets import OptionList


class Host(App[None]):
    """Records what the conversation posts up; asked for consent or a reload, it fails the test."""

    def __init__(self) -> None:
        super().__init__()
        self.posted: list[tuple[object, ...]] = []

    def compose(self) -> ComposeResult:
        yield Conversation(completions, self.no_consent, self.no_reload)

    async def no_consent(self, report: object) -> bool:
        raise AssertionError("no fold without a session")

    async def no_reload(self, at: int | None) -> None:
        raise AssertionError("no reload without a session")

    def on_conversation_command_typed(self, message: Conversation.CommandTyped) -> None:
        self.posted.append(("command", message.name, message.arg))

    def on_conversation_typed(self, message: Conversation.Typed) -> None:
        self.posted.append(("typed", message.tokens))


async def test_a_command_typed_is_suggested_then_posted_up_and_never_sent():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        composer = conversation.query_one(Composer)
        composer.focus()
        await pilot.press("/", "m", "o")
        await pilot.pause()
        suggestions = conversation.query_one("#suggestions", OptionList)
        assert suggestions.display and suggestions.get_option_at_index(0).id == "model"
        await pilot.press("tab")  # completes the command word
        assert composer.text == "/model "
        await pilot.press("g", "p", "t", "enter")
        await pilot.pause()
        assert ("command", "model", "gpt") in app.posted
        assert not suggestions.display
        assert conversation.queued == [] and not conversation.prompted  # a command is not a prompt


async def test_a_prompt_before_the_session_opens_is_queued_shown_and_said():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        composer = conversation.query_one(Composer)
        composer.focus()
        composer.text = "hello [b]there[/b]"
        await pilot.press("enter")
        await pilot.pause()
        assert conversation.queued == ["hello [b]there[/b]"] and conversation.prompted
        said = conversation.query_one(Transcript).said()
        assert [(d.role, d.text, d.status) for d in said] == [("user", "hello [b]there[/b]", "queued")]
        assert not any(kind == "command" for kind, *_ in app.posted)
        assert any("Queued" in str(n.message) for n in app._notifications)
        assert not conversation.stop()  # nothing streams, nothing is edited: Esc is not the conversation's
        assert conversation.close_suggestions() is False


async def test_the_tray_s_tokens_come_up_with_the_composer_s():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        conversation.query_one(Composer).typed_tokens = 7
        conversation.query_one(AttachmentTray).post_message(AttachmentTray.Changed(30))
        await pilot.pause()
        assert ("typed", 37) in app.posted
