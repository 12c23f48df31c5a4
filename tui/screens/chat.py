"""The chat screen: the status line, the conversation (tui/conversation: the transcript, the composer and the
send), the live gauge, and what they share.

The screen holds the state the widgets show (the status, the title, the gauge, whether a fold runs, whether
the model is ready), bound down to them; it opens the session and starts the model (in workers, through the
engine's `off_loop`: typing never waits), runs the commands the conversation posts up, opens the dialogs
(a fold's consent, help), and answers the turn's messages: the prompt stored (`PromptSaved`), a fold made or
not, the turn's end (`TurnOver`: the gauge from the engine's `TurnEnded`, the next fold prepared, a prompt
sent meanwhile answered). /resummarize folds in its own `fold_history` worker. The screen changes the
conversation only through the engine's `Session` (`backend`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from foldchat.engine import FoldCompleted, FoldFailedEvent, OpenOptions, off_loop, visible
from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Input, TextArea
from textual.worker import Worker, WorkerState

from .. import fold_outcome, idle_fold, opening
from ..conversation import Conversation
from ..conversation.refusals import refuse_prompt
from ..slash import BY_NAME, completions, folds, help_markdown, pins
from ..widgets.composer import Composer
from ..widgets.fold_marker import FoldMarker
from ..widgets.fold_progress import FoldEventPosted
from ..widgets.gauge import ContextGauge, GaugeState
from ..widgets.message import MessageView
from ..widgets.reply_face import ReplyCounted, StatusSaid
from ..widgets.reply_turn import FoldNotMade, FoldShown, PromptRefused, PromptSaved, TurnOver
from ..widgets.status_line import StatusLine
from ..widgets.transcript import Transcript
from .fold_consent import FoldConsent

if TYPE_CHECKING:  # the session module loads pydantic and SQLite: measured 250 ms before the first frame
    from foldchat.engine import Conversation as StoredConversation, FoldReport, Session, Usage, UsageTotals


T = TypeVar("T")


class ChatScreen(Screen[None]):
    # its CSS (chat.tcss) is in the app's CSS_PATH: it is the app's default screen (app.py), and Textual
    # reads a screen's own CSS_PATH only when it is pushed
    BINDINGS = [
        Binding("escape", "back", "Stop reply"),
        Binding("ctrl+r", "retry", "Regenerate"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+o", "model", "Model"),
        # Ctrl+H arrives as Backspace in tmux and xterm-like terminals; Ctrl+T and F2 arrive as themselves
        Binding("ctrl+t,f2", "history", "History", show=False),
        Binding("ctrl+l", "focus_composer", "Composer", show=False),
        Binding("home", "load_earlier", "Earlier", show=False),
        Binding("f3", "next_fold_marker", "Folds", show=False),
        Binding("shift+f3", "next_fold_marker(False)", "Folds", show=False),
    ]

    # the screen's state, bound down to the widgets that show it (`data_bind` in compose). `var`, not
    # `reactive`: only the bound widget repaints; a reactive would repaint the whole screen, several times a turn
    status: var[str] = var("starting…")
    conversation_title: var[str] = var("")
    """Shown first on the status line: which conversation this is (the first prompt, or a rename)."""
    gauge_state: var[GaugeState] = var(GaugeState(note="starting…"))
    folding: var[bool] = var(False)
    """A fold runs (a turn's or /resummarize's): its progress line shows."""
    model_ready: var[bool] = var(False)
    """The model is started and counts; prompts sent before wait for it."""
    # the conversation's widgets the screen and the commands (tui/host.py) work with
    composer = getters.query_one(Composer)
    transcript = getters.query_one(Transcript)

    def __init__(self, options: OpenOptions) -> None:
        super().__init__()
        self.options = options
        self.fold_requested: str | None = None  # a /resummarize typed while a reply streams
        # made here, not found: at unmount (the draft kept) its widgets are gone
        self.conversation = Conversation(completions, self.consent_to_fold, self.refresh_transcript)

    @property
    def backend(self) -> Session | None:
        """The open session (None while it opens): the conversation's, which sends through it."""
        return self.conversation.backend

    @backend.setter
    def backend(self, session: Session | None) -> None:
        self.conversation.backend = session

    @property
    def session(self) -> Session:
        return self.conversation.session

    # -- layout -------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        screen = ChatScreen
        yield StatusLine(self.status, id="status", markup=False).data_bind(
            title=screen.conversation_title, status=screen.status
        )
        yield self.conversation.data_bind(folding=screen.folding, model_ready=screen.model_ready)
        yield ContextGauge(id="gauge").data_bind(state=screen.gauge_state)
        yield Footer()

    def on_mount(self) -> None:  # (the composer has focus: Conversation.on_mount)
        # after the first frame: the backend's imports would otherwise compete with it for the GIL
        self.call_after_refresh(self.open_session)

    async def refresh_title(self) -> None:
        if self.backend is not None:
            self.show_title(await off_loop(self.backend.conversation))

    def show_title(self, conversation: StoredConversation | None) -> None:
        self.transcript.name_model(self.session.target, self.session.settings.local)  # welcome panel
        if conversation is None:  # not stored until its first message
            self.conversation_title = "conversation (new)"
        else:
            self.conversation_title = visible(conversation.title) or f"conversation {conversation.id} (new)"

    # -- start-up (tui/opening.py) ------------------------------------------------------------------------
    @work(group="startup", exit_on_error=False)
    async def open_session(self) -> None:
        await opening.open_session(self)

    @work(group="startup", exit_on_error=False)
    async def prepare_model(self) -> None:
        await opening.prepare_model(self)

    # -- transcript and gauge ---------------------------------------------------------------------
    async def refresh_transcript(self, at: int | None = None) -> None:
        """Re-read the transcript and folds (after a fold, undo, edit, switch) and recount; open `at` a message."""
        from ..presenters import transcript_state

        if self.backend is None:
            return
        state = await off_loop(transcript_state, self.backend)
        await self.transcript.show(state.items, pinned=state.pinned, folded_upto=state.folded_upto, at=at)
        await self.refresh_title()
        usage = await off_loop(self.backend.usage)
        self.set_usage(usage, state.spent)

    def set_usage(self, usage: Usage, spent: UsageTotals | None = None) -> None:
        from ..presenters import gauge_for  # loaded with the engine, off the first frame (open_backend)

        self.gauge_state = gauge_for(self.session, usage, self.gauge_state, spent)

    def update_gauge(self, **changes: Any) -> None:
        self.gauge_state = replace(self.gauge_state, **changes)

    async def refresh_usage(self, first: Callable[[], T] | None = None) -> T | None:
        """The title, the gauge and the cost, in one trip to a thread, after `first` (engine work that goes
        with them, whose result is returned): each trip wakes a thread and the loop; a turn made seven."""
        session = self.backend
        if session is None:
            return None

        def read() -> tuple[T | None, StoredConversation | None, Usage, UsageTotals]:
            result = first() if first is not None else None
            return result, session.conversation(), session.usage(), session.replies.usage_totals()

        result, conversation, usage, spent = await off_loop(read)
        self.show_title(conversation)
        self.set_usage(usage, spent)
        return result

    def on_conversation_typed(self, message: Conversation.Typed) -> None:
        """What is typed and attached would add `tokens`: the gauge shows it."""
        if self.gauge_state.typing != message.tokens:  # most counts of an emptied composer change nothing
            self.update_gauge(typing=message.tokens)

    # -- slash commands, and what messages and fold markers ask for -----------------------------------
    async def on_conversation_command_typed(self, message: Conversation.CommandTyped) -> None:
        await self.run_slash(message.name, message.arg)

    @on(FoldMarker.Selected)
    async def inspect_fold(self, event: FoldMarker.Selected) -> None:
        await folds.inspect(self, event.fold_id)

    @on(MessageView.PinRequested)
    async def pin_message(self, event: MessageView.PinRequested) -> None:
        await pins.toggle_pin(self, event.view)

    async def run_slash(self, name: str, arg: str = "") -> None:
        command = BY_NAME.get(name)
        if command is None:
            self.notify(f"Unknown command /{name}. Type / to see the commands, or F1 for help.", severity="warning")
            return
        if command.needs_session and self.backend is None:
            self.notify("Still starting: try again in a moment")
            return
        await command.handler(self, arg)

    # -- folding: its own worker, progress posted from the engine's thread ------------------------------
    def on_fold_event_posted(self, message: FoldEventPosted) -> None:
        """A fold's progress, shown on the conversation's line on its way here: started, each step, done."""
        self.folding = not isinstance(message.event, FoldCompleted | FoldFailedEvent)

    @work(group="fold", exit_on_error=False)
    async def fold_history(self, force: bool, focus: str | None = None) -> bool:
        """/resummarize (and an idle fold): fold now, said when done (tui/fold_outcome.py); True when folded."""
        return await fold_outcome.fold(self, force, focus)

    def model_status(self) -> str:
        session = self.backend
        return "" if session is None else f"{session.target.name} · {session.target.window:,} token window"

    async def consent_to_fold(self, report: FoldReport) -> bool:
        """`fold.auto = "ask"` (or off, and the send would not fit): a dialog asks; yes folds."""
        consented: bool = await self.app.push_screen_wait(FoldConsent(report.reason, forward=self.composer))
        return consented

    # -- a turn, run by the conversation: what it posts up ------------------------------------------------
    @on(StatusSaid)
    def status_said(self, message: StatusSaid) -> None:
        self.status = message.text

    @on(ReplyCounted)
    def reply_counted(self, message: ReplyCounted) -> None:
        self.update_gauge(streaming=message.tokens)

    # what a turn's end or fold sets going runs in a worker of the screen's, as the turn did before: a
    # message handler that waits holds up every message after it (a fold's progress, a redraw)
    @on(FoldShown)
    @work(group="turn", exit_on_error=False)
    async def turn_folded(self, message: FoldShown) -> None:
        try:
            await fold_outcome.show(self, message.report, force=False)
        finally:
            message.shown.set()  # the turn goes on: its reply takes a view in the rebuilt transcript

    @on(FoldNotMade)
    @work(group="turn", exit_on_error=False)
    async def turn_fold_not_made(self, message: FoldNotMade) -> None:
        event = message.event
        fold_outcome.not_made(self, event.reason, failed=event.failed and event.report is None)
        if event.report is not None:
            await fold_outcome.show(self, event.report, force=False)

    @on(PromptSaved)
    def prompt_saved(self, message: PromptSaved) -> None:
        """The gauge holds the prompt now, not after the reply; a new conversation has its title."""
        self.show_title(message.conversation)
        self.set_usage(message.usage)

    @on(PromptRefused)
    def turn_refused(self, message: PromptRefused) -> None:
        self.folding = False
        refuse_prompt(self.conversation, message)

    @on(TurnOver)
    @work(group="turn", exit_on_error=False)
    async def turn_over(self, message: TurnOver) -> None:
        """The gauge recounted (the reply is in the context now), then what waited for the turn: a
        /resummarize typed meanwhile, the next fold prepared, a prompt sent meanwhile answered."""
        session, conversation = message.session, self.conversation
        try:
            self.folding = False  # stopped mid-fold: the fold finishes in its thread, unseen
            self.status = self.model_status()
            if (ended := message.ended) is not None:  # the engine's end of the turn: nothing is asked again
                self.set_usage(ended.usage, ended.spent)
                prefold_due: bool | None = ended.prefold_due
            else:  # stopped: the partial reply is in the context, counted now
                prefold_due = await self.refresh_usage(session.auto.prefold_due)
        finally:
            conversation.turn_ended()
        if message.stopped:
            return
        if self.fold_requested is not None:
            focus, self.fold_requested = self.fold_requested, None
            await folds.resummarize(self, focus)
            prefold_due = await off_loop(session.auto.prefold_due)
        fold_outcome.prepare_next(self, bool(prefold_due))
        idle_fold.arm(self)  # folded unasked if it stays idle past the provider's prompt-cache lifetime
        if conversation.transcript.unanswered():
            conversation.stream_reply()

    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's own workers of `group` (a reply's worker is the transcript's: `Conversation.stop`)."""
        self.workers.cancel_group(self, group)

    # -- keys ---------------------------------------------------------------------------------------------
    def action_back(self) -> None:
        """Esc backs out one level: stops a streaming reply or cancels an edit, else closes the suggestions,
        else returns to the composer from wherever focus is (the transcript, a fold marker)."""
        if not self.conversation.stop() and not self.conversation.close_suggestions():
            self.composer.focus()

    def action_retry(self) -> None:
        self.conversation.retry()

    def on_key(self, event: events.Key) -> None:
        """A printable key typed outside a text field goes to the composer, and focus with it. A selected
        message binds no letters (its actions are behind Enter): "pizza" typed there is "pizza"."""
        if not event.is_printable or event.character is None or isinstance(self.focused, TextArea | Input):
            return
        if event.key in self.active_bindings:
            return
        event.stop()
        event.prevent_default()
        self.composer.focus()
        self.composer.type_ahead(event.character)

    def on_screen_resume(self) -> None:
        # back from a dialog whose opener is gone (a fold marker replaced by a reload): nothing is focused
        self.call_after_refresh(self._focus_composer_if_lost)

    def _focus_composer_if_lost(self) -> None:
        if self.is_current and self.focused is None:
            self.composer.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # a bug in a worker becomes a one-line notification, never a traceback on screen
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            self.log.error(f"worker {event.worker.name} failed", error)
            self.notify(f"{type(error).__name__}: {error}", title="Something went wrong", severity="error", timeout=20)

    def action_help(self) -> None:
        from .info import InfoScreen

        self.app.push_screen(InfoScreen(help_markdown(), "help-screen"))

    async def action_model(self) -> None:
        await self.run_slash("model")

    async def action_history(self) -> None:
        await self.run_slash("history")

    def action_focus_composer(self) -> None:
        self.composer.focus()

    def action_next_fold_marker(self, older: bool = True) -> None:
        """F3 / Shift+F3: the fold marker before / after the one focused; Enter on it opens the inspector."""
        if not self.transcript.focus_fold_marker(self.focused, older):
            self.notify("No fold in this conversation yet")

    async def action_load_earlier(self) -> None:
        await self.transcript.load_earlier()

    def on_unmount(self) -> None:
        if self.backend is not None:
            self.conversation.keep_draft()
            self.backend.close()
