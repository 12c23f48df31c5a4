"""The composer never holds a raw control byte: it writes its lines to the terminal as they are, so an ESC
or BEL in a prompt opened for editing (an imported conversation, a paste) was obeyed: the terminal's title
set, text coloured, the line broken. Whatever way text comes in, it holds the stand-ins (␛, ␇) instead."""

from __future__ import annotations

from foldchat.tui.widgets.composer import Composer
from textual import events
from textual.app import App, ComposeResult

from tui.test_chat_flows import ready_chat

SEQUENCES = "say hi \x1b]2;pwned\x07 \x1b[31mRED\x1b[0m \x1b]52;c;aGk=\x07 \x9b2J ok"
RAW = ("\x1b", "\x07", "\x9b")


class ComposerApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Composer()


async def test_text_set_or_pasted_holds_stand_ins_not_control_bytes():
    app = ComposerApp()
    async with app.run_test() as pilot:
        composer = app.query_one(Composer)
        composer.text = SEQUENCES
        assert not any(byte in composer.text for byte in RAW)
        assert "say hi ␛]2;pwned␇" in composer.text and composer.text.endswith(" ok")
        composer.text = ""
        composer.focus()
        app.post_message(events.Paste("line one\r\n\x1b[31mred\x1b[0m\tend"))  # as a terminal's paste comes
        await pilot.pause()
        assert composer.text == "line one\n␛[31mred␛[0m\tend"  # newlines and tabs stay what they are


async def test_a_paste_whose_lines_end_in_carriage_returns_keeps_its_lines():
    """tmux (paste-buffer -p) and many terminals paste each line ending as CR: a 60-line paste showed as one
    line joined by `␍`."""
    app = ComposerApp()
    async with app.run_test() as pilot:
        composer = app.query_one(Composer)
        composer.focus()
        app.post_message(events.Paste("Line 1: Lisbon\rLine 2: tram 28\rLine 3: 180 euros"))
        await pilot.pause()
        assert composer.text == "Line 1: Lisbon\nLine 2: tram 28\nLine 3: 180 euros" and "␍" not in composer.text
        composer.load_text("a draft\r\nof two lines")
        assert composer.document.line_count == 2


async def test_an_earlier_prompt_with_escape_sequences_opens_for_editing_harmless(app_factory, fake):
    async with ready_chat(app_factory(), (100, 30)) as (pilot, screen):
        screen.backend.add_user_message(SEQUENCES)
        await screen.refresh_transcript()
        composer = screen.query_one(Composer)
        composer.focus()
        await pilot.press("up")  # ↑ in the empty composer: the last prompt, to edit
        await pilot.pause()
        assert screen.conversation.editing is not None
        assert composer.text.startswith("say hi ␛]2;pwned␇") and not any(byte in composer.text for byte in RAW)
