"""The multi-line composer: Enter sends, Ctrl+J (or Shift+Enter where the terminal reports it)
inserts a newline; typing "/" offers the slash commands (Tab completes); ↑ in an empty composer asks
to edit the last prompt. Attaching: Tab after `@` completes a path, a pasted path of an existing file is
offered as an attachment, and Backspace in an empty composer takes the last attachment out (Ctrl+Z puts
it back, in turn with the text's own undo)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from foldchat.engine import off_loop, visible
from textual import events, work
from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.widgets import TextArea

from .latest import Latest

if TYPE_CHECKING:
    from textual.document._document import EditResult, Location
    from textual.document._edit import Edit

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")


TYPING_PAUSE = 0.15
"""Seconds of no typing before a big text is counted (small texts are counted at once)."""
BIG_TYPED_TEXT = 4_000  # characters: above this, counting waits for a pause in typing


class Composer(TextArea):
    DEFAULT_CSS = """
    Composer { height: auto; min-height: 3; max-height: 12; border: round $primary; }
    """

    class Submitted(TextualMessage):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class TabPressed(TextualMessage):
        """Tab on a /command being typed: the suggestions complete it."""

    class TabOut(TextualMessage):
        """Tab anywhere else: focus leaves for the transcript's latest message."""

    class EditLastRequested(TextualMessage):
        """↑ in an empty composer: the conversation loads the last prompt for editing."""

    class PathTab(TextualMessage):
        """Tab on a word that starts with `@`: the conversation completes the path (`word` without the `@`)."""

        def __init__(self, word: str) -> None:
            super().__init__()
            self.word = word

    class PathPasted(TextualMessage):
        """A paste that is the path of an existing file: the conversation attaches it."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class EmptyBackspace(TextualMessage):
        """Backspace in an empty composer: the conversation takes the last attachment out."""

    class Counted(Latest):
        """What the typed text would add to the context, in tokens (0: nothing to send, or a command)."""

        def __init__(self, tokens: int) -> None:
            super().__init__()
            self.tokens = tokens

    HINT = "Message · Enter send · Ctrl+J newline · Ctrl+L clear · / commands"

    BINDINGS = [
        # a 2,000-line paste must not need 2,000 keystrokes to go (Ctrl+Z brings it back; F7 selects all)
        Binding("ctrl+l", "clear_all", "Clear", show=False),
    ]

    def action_clear_all(self) -> None:
        self.clear()  # an edit like any other: Ctrl+Z undoes it

    def __init__(self) -> None:
        super().__init__(id="composer", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.border_title = self.HINT
        self.count: Callable[[str], int] | None = None
        """What a text costs, set by the screen once the model can count (None: nothing is counted)."""
        self.typed_tokens = 0
        self.count_waiting = False
        """A count is started and has not read the text yet: it reads the newest, so no other is started."""
        self.typed_ahead: list[str] = []
        """Characters typed and not in the text yet: keys that arrive together (a paste without bracketed
        paste is a key per character) go in as one edit, see `_on_key`."""
        self.input_queued = False
        """The app sent it input the long way, through its queue (Enter, a paste, a click), and it may not
        have handled it yet: the app's shortcut for characters (tui/app.py) waits until it has."""
        self.taken_away: list[tuple[list[Edit] | None, Callable[[], None]]] = []
        """What Backspace in the empty composer took out (attachments), newest last: how to put each back,
        and the text's newest undo batch when it went (see `action_undo`)."""
        self.line_break_owed = False
        """An Enter that sent nothing (refusals.give_back) goes in as a line break before what is typed next:
        a paste that comes as keys keeps its lines. Any other key, or new text, cancels it."""

    # -- the count of what is typed ---------------------------------------------------------------------
    def on_text_area_changed(self) -> None:  # the conversation sees the change too (its suggestions)
        self.recount()

    def recount(self) -> None:
        """Count the text (a command, or nothing typed, costs nothing and starts no count). Looks only at
        the first line: this runs at every edit, and reading the whole text made typing quadratic."""
        if self.count is None:
            return
        first = self.document.get_line(0)
        if first.startswith("/") or (self.document.line_count == 1 and not first):  # emptied by every send
            self.clear_count()
        elif not self.count_waiting:
            self.count_waiting = True
            self.count_typed()

    def clear_count(self) -> None:
        """Nothing typed is to be sent: a count still running is for text that has left."""
        self.workers.cancel_group(self, "typing")
        self.count_waiting = False
        if self.typed_tokens:  # every keystroke of a command lands here: a message only when the count changes
            self.typed_tokens = 0
            self.post_message(self.Counted(0))

    @work(group="typing", exclusive=True, exit_on_error=False)
    async def count_typed(self) -> None:
        """Counted in a thread: re-tokenising a 200 KB paste on the UI thread took ~95 ms per keystroke. A
        count not started yet reads the newest text when it starts, so keys that come faster than counts
        start none (each one started a count that cancelled all those before it: N keys, N²/2 cancels); one
        that has read its text is cancelled by the next; a big text is counted once typing pauses."""
        self.count_waiting = False
        count, text = self.count, self.text
        if count is None:
            return
        if len(text) > BIG_TYPED_TEXT:
            await asyncio.sleep(TYPING_PAUSE)
        self.typed_tokens = await off_loop(count, text) if text.strip() else 0
        self.post_message(self.Counted(self.typed_tokens))

    # -- keys -------------------------------------------------------------------------------------------
    def type_ahead(self, character: str) -> None:
        """`character` goes in with the others typed before the composer next takes a message: a burst
        of keys is one edit (each key's own edit re-wrapped the whole line, quadratic in its length)."""
        if not self.typed_ahead:
            self.call_later(self.flush_typed)  # behind the keys already waiting in the queue
        self.typed_ahead.append(character)

    async def _on_idle(self, _: events.Idle) -> None:
        self.input_queued = False  # its queue is empty: nothing sent the long way waits in it

    def flush_typed(self) -> None:
        """What was typed ahead, in the text now (before any other key, paste or click is handled)."""
        if self.typed_ahead:
            text = "".join(self.typed_ahead)
            self.typed_ahead.clear()
            self._restart_blink()
            self._replace_via_keyboard(text, *self.selection)

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and not self.read_only:
            event.stop()
            event.prevent_default()
            self.type_ahead(event.character)
            return
        self.flush_typed()
        self.line_break_owed = False  # a key that is not text: the Enter refused is not the start of a line
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            text = self.text
            if text.strip():
                self.taken_away.clear()  # what was taken out of this message stays out of the next
                self.clear()
                self.post_message(self.Submitted(text))
            return
        if event.key in NEWLINE_KEYS:
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        # in an empty composer ↑ loads the last prompt to edit; on the first line of one loaded, the one before
        if event.key == "up" and (self.empty or (self.has_class("-editing") and self.cursor_location[0] == 0)):
            event.prevent_default()
            event.stop()
            self.post_message(self.EditLastRequested())
            return
        if event.key == "tab" and self.document.get_line(0).startswith("/"):
            event.prevent_default()
            event.stop()
            self.post_message(self.TabPressed())
            return
        if event.key == "tab" and (word := self.word_at_cursor()).startswith("@"):
            event.prevent_default()
            event.stop()
            self.post_message(self.PathTab(word[1:]))
            return
        if event.key == "tab" and self.tab_behavior == "focus":
            event.prevent_default()
            event.stop()
            self.post_message(self.TabOut())
            return
        if event.key == "backspace" and self.empty:
            self.post_message(self.EmptyBackspace())
        await super()._on_key(event)

    async def take_key(self, typed: events.Key) -> None:
        """A key typed while a dialog is over the chat (the fold-consent question), taken as if the composer
        had focus: its own keys first (Enter, Ctrl+J, ↑, Tab, a character), else its binding for the key
        (Backspace, the arrows, Ctrl+Z…). Awaited by the dialog key by key, so keys keep their order."""
        key = events.Key(typed.key, typed.character)
        await self._on_key(key)
        if key._stop_propagation:  # taken by `_on_key`, as Textual would then check no binding
            return
        for binding in self._bindings.key_to_bindings.get(key.key, ()):
            if await self.app.run_action(binding.action, self):
                return

    # -- what goes in: never a raw control byte -----------------------------------------------------------
    # The text area writes its lines to the terminal as they are: an ESC or BEL in a prompt opened for
    # editing, a draft or a paste would be obeyed (the title set, colours changed, OSC 52 the clipboard).
    # Every way text comes in goes through these two, so it holds the visible stand-ins instead (␛, ␇).
    # A carriage return is a line break there, not a control byte: many terminals (tmux among them) paste
    # each line ending as CR, and a 60-line paste came in as one line joined by `␍`.
    def load_text(self, text: str) -> None:
        self.line_break_owed = False
        super().load_text(_as_typed(text))

    def _replace_via_keyboard(self, insert: str, start: Location, end: Location) -> EditResult | None:
        if self.line_break_owed and insert:
            self.line_break_owed, insert = False, "\n" + insert
        return super()._replace_via_keyboard(_as_typed(insert), start, end)

    async def take_paste(self, text: str) -> None:
        """A paste made while a dialog is over the chat, as if the composer had focus."""
        paste = events.Paste(text)
        await self._on_paste(paste)
        await TextArea._on_paste(self, paste)  # what Textual runs after ours on a paste of its own

    # -- undo -------------------------------------------------------------------------------------------
    def took_away(self, put_back: Callable[[], None]) -> None:
        """Backspace in the empty composer took something out (an attachment): Ctrl+Z calls `put_back`
        once the text edits made since are undone, as if it were an edit of the text."""
        self.history.checkpoint()  # a key typed next is a batch of its own, undone before this
        self.taken_away.append((self.newest_edits(), put_back))

    def newest_edits(self) -> list[Edit] | None:
        stack = self.history.undo_stack
        return stack[-1] if stack else None

    def action_undo(self) -> None:
        """Ctrl+Z: the newest of a text edit and an attachment taken out is undone."""
        if self.taken_away and self.taken_away[-1][0] is self.newest_edits():
            self.taken_away.pop()[1]()
        else:
            super().action_undo()

    @property
    def empty(self) -> bool:
        """Nothing typed (without joining the text's lines, as `text` does)."""
        return self.document.line_count == 1 and not self.document.get_line(0)

    def word_at_cursor(self) -> str:
        row, column = self.cursor_location
        line = self.document.get_line(row)[:column]
        return line.rsplit(maxsplit=1)[-1] if line.strip() and not line.endswith(" ") else ""

    def complete_word(self, word: str, completed: str) -> None:
        """Replace `word`, which ends at the cursor, with `completed`."""
        row, column = self.cursor_location
        self.replace(completed, (row, column - len(word)), (row, column))

    async def _on_mouse_down(self, _: events.MouseDown) -> None:
        self.flush_typed()  # the text area's own handler moves the cursor next: what was typed goes in first

    def _on_blur(self, _: events.Blur) -> None:
        self.flush_typed()

    async def _on_paste(self, event: events.Paste) -> None:
        self.flush_typed()
        # Textual runs the text area's own `_on_paste` after this one (each class's in turn): it inserts the text
        self.post_message(self.PathPasted(event.text))  # the screen checks it off the UI thread


def _as_typed(text: str) -> str:
    """Text as the composer holds it: line endings as newlines (CRLF and a lone CR alike), every other
    control byte as its visible stand-in."""
    return visible(text.replace("\r\n", "\n").replace("\r", "\n"))
