"""What a slash command or a helper may do to the chat screen (`ChatHost`) and to the conversation on it
(`Sender`), listed once.

The commands (tui/slash/), start-up (tui/opening.py), fold outcomes (tui/fold_outcome.py) and the idle fold
(tui/idle_fold.py) are typed against `ChatHost`; the send's helpers (tui/conversation/attaching.py,
editing.py, refusals.py) against `Sender`. Not against `ChatScreen` or the `Conversation` widget: those
import them, and a helper that imported them back, even only for a type, would close an import circle
(tests/tui/test_import_graph.py holds tui/ to none). `ChatScreen` and `Conversation` are the one host of
each; mypy checks that they are wherever one hands itself to a helper. A new need of a helper is added here
first.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from foldchat.engine import FoldEvent, OpenOptions, Session, Usage, UsageTotals
    from textual.app import App
    from textual.dom import DOMNode
    from textual.notifications import SeverityLevel
    from textual.timer import Timer, TimerCallback
    from textual.worker import Worker

    from .widgets.attachment_tray import AttachmentTray
    from .widgets.composer import Composer
    from .widgets.gauge import GaugeState
    from .widgets.message import MessageView
    from .widgets.transcript import Transcript

T = TypeVar("T")


class Notifier(Protocol):
    """What any Textual widget or screen does: a toast."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


class Sender(Notifier, Protocol):
    """The conversation on the screen (tui/conversation/widget.py) as the send's helpers and the commands see
    it: its widgets, what is being sent or edited, and the reply."""

    @property
    def composer(self) -> Composer: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def tray(self) -> AttachmentTray: ...

    backend: Session | None
    """The open session; None while the conversation opens (the screen sets it)."""

    @property
    def session(self) -> Session:
        """The open session, for what runs only once it is open."""

    @property
    def streaming(self) -> bool: ...
    @property
    def selected_message(self) -> MessageView | None: ...

    editing: int | None
    """The id of the earlier prompt being edited in the composer."""

    async def refresh_transcript(self, at: int | None = None) -> None:
        """The transcript re-read, with the title and the gauge (the screen's)."""

    def stream_reply(self, regenerate: bool = False) -> Worker[None] | None: ...
    async def send_queued(self) -> bool:
        """What was sent before the session opened, stored now; True when there was some."""

    def answer_unanswered(self) -> None: ...
    def post_fold_event(self, event: FoldEvent) -> None:
        """A fold's progress, from the engine's thread: shown under the title."""

    def retry(self) -> None: ...
    def keep_draft(self) -> None: ...
    def restore_draft(self) -> None: ...


class ChatHost(Notifier, Protocol):
    """The chat screen as its commands see it: the conversation on it, its state, what it starts."""

    @property
    def conversation(self) -> Sender: ...

    # -- the conversation's widgets, found from the screen -------------------------------------------
    @property
    def composer(self) -> Composer: ...
    @property
    def transcript(self) -> Transcript: ...

    # -- its state ------------------------------------------------------------------------------------
    options: OpenOptions
    """How the app was started: which conversation and model to open."""
    backend: Session | None
    """The open session; None while the conversation opens."""

    @property
    def session(self) -> Session:
        """The open session, for what runs only once it is open (`SlashCommand.needs_session`)."""

    status: str
    gauge_state: GaugeState
    model_ready: bool
    folding: bool
    fold_requested: str | None
    """A /resummarize (its focus) typed while a reply streams: folded when the reply ends."""

    # -- what it does -----------------------------------------------------------------------------------
    async def refresh_transcript(self, at: int | None = None) -> None: ...
    async def refresh_title(self) -> None: ...
    def model_status(self) -> str: ...
    async def refresh_usage(self, first: Callable[[], T] | None = None) -> T | None: ...
    def set_usage(self, usage: Usage, spent: UsageTotals | None = None) -> None: ...
    def update_gauge(self, **changes: Any) -> None:
        """The gauge's state with `changes` (GaugeState's fields)."""

    def prepare_model(self) -> Worker[None]: ...
    def fold_history(self, force: bool, focus: str | None = None) -> Worker[bool]: ...
    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's own workers of `group` ("prefold")."""

    # -- what any Textual screen does -----------------------------------------------------------------
    @property
    def app(self) -> App[object]: ...
    async def run_action(self, action: str) -> None: ...
    def call_after_refresh(self, callback: Callable[[], None]) -> bool: ...
    def watch(self, obj: DOMNode, attribute_name: str, callback: Callable[[Any], None], init: bool = True) -> None: ...
    def run_worker(
        self,
        work: Coroutine[Any, Any, T] | Callable[[], T],
        *,
        name: str | None = "",
        group: str = "default",
        exit_on_error: bool = True,
        thread: bool = False,
    ) -> Worker[T]: ...
    def set_timer(self, delay: float, callback: TimerCallback | None = None) -> Timer: ...
