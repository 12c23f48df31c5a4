"""The Foldchat app: one factory (`make_app`) used by the CLI and by the tests."""

from __future__ import annotations

import argparse
from functools import partial

from foldchat.engine import OpenOptions
from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from .commands import COMMANDS
from .screens.chat import ChatScreen


class SlashCommandProvider(Provider):
    """Every /command in the command palette (Ctrl+P)."""

    async def _run(self, name: str) -> None:
        screen = self.app.get_screen("chat")
        assert isinstance(screen, ChatScreen)
        await screen.run_slash(name)

    async def discover(self) -> Hits:
        for command in COMMANDS:
            yield DiscoveryHit(command.usage, partial(self._run, command.name), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS:
            score = matcher.match(command.usage)
            if score > 0:
                yield Hit(score, matcher.highlight(command.usage), partial(self._run, command.name), help=command.help)


AppOptions = OpenOptions  # how the app was started (CLI flags), plus injection points for tests


class FoldchatApp(App[None]):
    TITLE = "Foldchat"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options

    def on_mount(self) -> None:
        self.install_screen(ChatScreen(self.options), name="chat")
        self.push_screen("chat")


def make_app(options: AppOptions | None = None) -> FoldchatApp:
    return FoldchatApp(options or AppOptions())


def run_app(args: argparse.Namespace) -> int:
    options = AppOptions(
        config=getattr(args, "config", None),
        conversation=getattr(args, "conversation", None),
        new=bool(getattr(args, "new", False)),
        model=getattr(args, "model", None),
    )
    make_app(options).run()
    return 0
