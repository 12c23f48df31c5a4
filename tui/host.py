"""What a slash command or a screen helper may do to the chat screen, listed once: `ChatHost`.

The commands (tui/slash/) and the screen's helpers (tui/screens/attaching.py, editing.py, refusals.py,
tui/idle_fold.py) are typed against this `Protocol`, not against `ChatScreen`: the screen imports them,
and a helper that imported the screen back, even only for a type, would close an import circle
(tests/tui/test_import_graph.py holds tui/ to none). `ChatScreen` is the one host; mypy checks that it
is one wherever the screen hands itself to a helper. A new need of a helper is added here first.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from foldchat.engine import Session, Usage, UsageTotals
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.timer import Timer, TimerCallback
    from textual.worker import Worker

    from .widgets.attachment_tray import AttachmentTray
    from .widgets.composer import Composer
    from .widgets.gauge import GaugeState
    from .widgets.message import MessageView
    from .widgets.transcript import Transcript

T = TypeVar("T")


class ChatHost(Protocol):
    """The chat screen as its commands and helpers see it: its widgets, its state, what it starts."""

    # -- its widgets ----------------------------------------------------------------------------------
    @property
    def composer(self) -> Composer: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def tray(self) -> AttachmentTray: ...

    # -- its state ------------------------------------------------------------------------------------
    @property
    def backend(self) -> Session | None:
        """The open session; None while the conversation opens."""

    @property
    def session(self) -> Session:
        """The open session, for what runs only once it is open (`SlashCommand.needs_session`)."""

    @property
    def streaming(self) -> bool: ...
    @property
    def gauge_state(self) -> GaugeState: ...
    @property
    def selected_message(self) -> MessageView | None: ...

    folding: bool
    editing: int | None
    """The id of the earlier prompt being edited in the composer."""
    fold_requested: str | None
    """A /resummarize (its focus) typed while a reply streams: folded when the reply ends."""

    # -- what it does -----------------------------------------------------------------------------------
    async def refresh_transcript(self, at: int | None = None) -> None: ...
    async def refresh_title(self) -> None: ...
    async def refresh_usage(self, first: Callable[[], T] | None = None) -> T | None: ...
    def set_usage(self, usage: Usage, spent: UsageTotals | None = None) -> None: ...
    def prepare_model(self) -> Worker[None]: ...
    def fold_history(self, force: bool, focus: str | None = None) -> Worker[bool]: ...
    def stream_reply(self, regenerate: bool = False) -> Worker[None] | None: ...
    def action_retry(self) -> None: ...
    def keep_draft(self) -> None: ...
    def restore_draft(self) -> None: ...
    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's own workers of `group` ("reply", "prefold")."""

    # -- what any Textual screen does -----------------------------------------------------------------
    @property
    def app(self) -> App[object]: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...
    async def run_action(self, action: str) -> None: ...
    def run_worker(
        self, work: Coroutine[Any, Any, T], *, group: str = "default", exit_on_error: bool = True
    ) -> Worker[T]: ...
    def set_timer(self, delay: float, callback: TimerCallback | None = None) -> Timer: ...
