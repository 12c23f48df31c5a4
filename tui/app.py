"""The Foldchat app: one factory (`make_app`) used by the CLI and by the tests."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
from typing import cast

from foldchat.engine import OpenOptions, visible
from textual import events
from textual.app import App, ScreenStackError
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape
from textual.notifications import SeverityLevel

from . import paste_guard
from .literal import literal
from .screens.chat import ChatScreen
from .slash import COMMANDS
from .widgets.composer import Composer


class SlashCommandProvider(Provider):
    """Every /command in the command palette (Ctrl+P)."""

    async def _run(self, name: str) -> None:
        screen = self.app.get_screen("chat")
        assert isinstance(screen, ChatScreen)
        await screen.run_slash(name)

    async def discover(self) -> Hits:
        for command in COMMANDS:
            # "[name]" is what the command takes, not markup
            yield DiscoveryHit(literal(command.usage), partial(self._run, command.name), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS:
            score = matcher.match(command.usage)
            if score > 0:
                shown = matcher.highlight(escape(command.usage))
                yield Hit(score, shown, partial(self._run, command.name), help=command.help)


AppOptions = OpenOptions  # how the app was started (CLI flags), plus injection points for tests


class FoldchatApp(App[None]):
    TITLE = "Foldchat"
    # the chat screen's CSS too: it is the default screen, and Textual reads a screen's own CSS_PATH only
    # when it is pushed
    CSS_PATH = ["app.tcss", "screens/chat.tcss"]
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options
        self.crash: tuple[Exception, Path | None] | None = None
        # the chat screen is the app's default screen, not pushed over Textual's blank one: pushing it
        # styled the whole app again and laid out two screens, ~70 ms before the first frame
        self.install_screen(ChatScreen(options), name="chat")

    async def on_event(self, event: events.Event) -> None:
        # A character typed in the composer goes straight into what it types ahead: Textual's way (the
        # focus chain's bindings gathered, a tooltip looked for, the key queued for the composer) costs
        # ~80 µs a key, and a paste without bracketed paste is a key per character. No priority binding
        # of the app is a printable key. What goes Textual's way (Enter, Ctrl+J, a paste, a click) may
        # wait in the composer's queue: until the composer has handled it, characters are queued behind
        # it (still without the bindings and the tooltip), or they would get in ahead of it.
        composer = self.composer_typed_in(event)
        if composer is None:
            await super().on_event(event)
            return
        character = event.character if isinstance(event, events.Key) and event.is_printable else None
        if character and self.app_focus and not composer.input_queued:
            composer.type_ahead(character)
        elif character and self.app_focus:
            composer._forward_event(event)
        else:
            composer.input_queued = True  # (until its queue is next empty: if this never reaches it, no harm)
            await super().on_event(event)

    def composer_typed_in(self, event: events.Event) -> Composer | None:
        """The composer, when `event` is input the app is about to hand it (it has focus)."""
        if not isinstance(event, events.InputEvent) or event.is_forwarded:
            return None
        try:
            focused = self.focused
        except ScreenStackError:  # a key typed before the first screen is up
            return None
        return focused if isinstance(focused, Composer) else None

    def get_default_screen(self) -> ChatScreen:
        return cast(ChatScreen, self.get_screen("chat"))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast shows its text literally, whoever asks: most of it is text we did not write (errors,
        names, commands), and `Widget.notify` and `Screen.notify` pass `markup=True` unless told otherwise,
        so the flag is not taken from them: this is the one path every toast takes."""
        del markup
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """Ctrl+C outside a text field: say how to quit, in plain words (Textual's says it in markup)."""
        self.notify("Press Ctrl+Q to quit Foldchat", title="Do you want to quit?")

    def _handle_exception(self, error: Exception) -> None:
        # Textual's handler renders a full traceback for the terminal; ours logs it and keeps one line
        from foldchat.engine import write_crash_log

        try:
            self.crash = (error, write_crash_log(error))
        except OSError:
            self.crash = (error, None)
        super()._handle_exception(error)

    def _print_error_renderables(self) -> None:
        if self.crash is None:
            return super()._print_error_renderables()
        from foldchat.engine import crash_line, visible

        error, log = self.crash
        self._exit_renderables.clear()
        if log is None:
            self.error_console.file.write(visible(f"foldchat: internal error: {type(error).__name__}: {error}") + "\n")
        else:
            self.error_console.file.write(crash_line(error, log) + "\n")


def make_app(options: AppOptions | None = None) -> FoldchatApp:
    return FoldchatApp(options or AppOptions())


def run_app(args: argparse.Namespace, *, headless: bool = False) -> int:
    """Run the app; 0 on a normal exit, 1 after an unexpected error (one line on stderr, traceback logged)."""
    options = AppOptions(
        config=getattr(args, "config", None),
        conversation=getattr(args, "conversation", None),
        new=bool(getattr(args, "new", False)),
        model=getattr(args, "model", None),
    )
    paste_guard.install()  # a pasted ESC must not turn the rest of the paste into key presses
    app = make_app(options)
    app.run(headless=headless)
    return 1 if app.crash is not None else (app.return_code or 0)
