"""The chat screen: transcript, live gauge, composer, folds you can watch.

Engine work runs off the UI thread (awaited through the engine's `off_loop` in async workers), so typing never waits:
the session opens in the background, a message typed before the model is ready is sent when it is. A
turn is the engine's (`Session.turn`), shown by the transcript's reply worker (widgets/reply_turn.py: the
reply painted by `ReplyFace`), which posts up what the screen shows: the fold's progress under the title,
a fold made or refused, the status line, the gauge's live count, the turn's end. The screen answers with
its state (bound down to the widgets) and the consent dialog when asked. /resummarize folds in its own
`fold_history` worker; `prepare_fold` prepares the next fold past the reset ratio; Esc stops a streaming
reply (its text is kept). The screen changes the conversation only through the engine's `Session` (`backend`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from foldchat.engine import (
    FoldchatError,
    FoldCompleted,
    FoldEvent,
    FoldFailedEvent,
    OpenOptions,
    in_thread,
    off_loop,
    shown_attachments,
    user_message,
    visible,
)
from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, TextArea
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from .. import idle_fold
from ..heap import settle_heap
from ..literal import literal
from ..opening import open_backend
from ..slash import BY_NAME, completions, folds, help_markdown, parse, pins
from ..widgets import reply_turn
from ..widgets.attachment_tray import AttachmentTray
from ..widgets.composer import Composer
from ..widgets.fold_marker import FoldMarker
from ..widgets.fold_progress import FoldEventPosted, FoldProgressLine
from ..widgets.gauge import ContextGauge, GaugeState
from ..widgets.message import MessageData, MessageView
from ..widgets.reply_face import ReplyCounted, StatusSaid, reply_data
from ..widgets.reply_turn import FoldNotMade, FoldShown, Prompt, PromptRefused, PromptSaved, TurnOver, TurnStarted
from ..widgets.status_line import StatusLine
from ..widgets.transcript import Transcript
from . import editing
from .attaching import attachments_for, complete_path, offer_pasted, take_out_last
from .fold_consent import FoldConsent
from .refusals import refuse_prompt, refuse_while_replying

if TYPE_CHECKING:  # the session module loads pydantic and SQLite: measured 250 ms before the first frame
    from foldchat.engine import Conversation, FoldReport, Session, Usage, UsageTotals


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
    # the widgets the screen and its helpers (tui/host.py) work with, each composed once (`compose`)
    composer = getters.query_one(Composer)
    transcript = getters.query_one(Transcript)
    tray = getters.query_one(AttachmentTray)
    suggestions = getters.query_one("#suggestions", OptionList)

    def __init__(self, options: OpenOptions) -> None:
        super().__init__()
        self.options = options
        self.backend: Session | None = None
        self.model_ready = False
        self.queued: list[str] = []
        self.typed_in: TextArea | None = None
        self.fold_requested: str | None = None  # a /resummarize typed while a reply streams
        self.editing: int | None = None
        self.selected_message: MessageView | None = None  # the last message focused: what /pin pins
        self.prompted = False
        """The user sent a prompt in this session (one typed before the model was ready is answered when
        it is); a conversation opened with an unanswered prompt is never sent without a keypress."""

    @property
    def session(self) -> Session:
        assert self.backend is not None, "what needs the session runs once it is open"
        return self.backend

    # -- layout -------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        screen = ChatScreen
        yield StatusLine(self.status, id="status", markup=False).data_bind(
            title=screen.conversation_title, status=screen.status
        )
        yield Transcript()
        yield FoldProgressLine(id="fold-progress").data_bind(active=screen.folding)
        yield OptionList(id="suggestions")
        yield AttachmentTray()
        yield Composer()
        yield ContextGauge(id="gauge").data_bind(state=screen.gauge_state)
        yield Footer()

    def on_mount(self) -> None:
        self.composer.focus()
        self.suggestions.display = False
        # after the first frame: the backend's imports would otherwise compete with it for the GIL
        self.call_after_refresh(self.open_session)

    async def refresh_title(self) -> None:
        if self.backend is not None:
            self.show_title(await off_loop(self.backend.conversation))

    def show_title(self, conversation: Conversation | None) -> None:
        self.transcript.name_model(self.session.target, self.session.settings.local)  # welcome panel
        if conversation is None:  # not stored until its first message
            self.conversation_title = "conversation (new)"
        else:
            self.conversation_title = visible(conversation.title) or f"conversation {conversation.id} (new)"

    # -- start-up -----------------------------------------------------------------------------------
    @work(group="startup", exit_on_error=False)
    async def open_session(self) -> None:
        self.status = "opening the conversation…"
        try:
            session, state = await off_loop(open_backend, self.options)
            await self.transcript.show(state.items, pinned=state.pinned, folded_upto=state.folded_upto)
            self.status = "loading model support…"
            await self.painted()  # litellm's import in a thread holds the GIL: the transcript is drawn first
            await off_loop(session.connect)  # litellm: seconds, so after the transcript is up
        except FoldchatError as error:
            self.status = f"could not start: {error}"
            self.notify(str(error), title="Foldchat could not start", severity="error", timeout=30)
            return
        self.backend = session
        await self.refresh_title()
        for title, problem in state.opening_notices(session):
            self.notify(problem, title=title, severity="warning", markup=False)
        theme = session.workspace.remembered.theme or session.settings.theme  # the last chosen wins; kept when changed
        if theme in self.app.available_themes:
            self.app.theme = theme
        self.watch(self.app, "theme", lambda chosen: session.workspace.remembered.set_theme(chosen), init=False)
        self.restore_draft()
        for text in self.queued:
            await off_loop(session.add_user_message, text)
        if self.queued:
            self.queued.clear()
            await self.refresh_transcript()
        else:
            self.gauge_state = GaugeState(cost=(spent := state.spent).cost, cached_share=spent.cached_share, note="counting…")
        self.prepare_model()

    async def painted(self) -> None:
        """Return once the screen has been refreshed with what is mounted now."""
        drawn = asyncio.Event()
        self.call_after_refresh(drawn.set)
        await drawn.wait()

    @work(group="startup", exit_on_error=False)
    async def prepare_model(self) -> None:
        session = self.backend
        assert session is not None
        self.model_ready = False
        self.composer.count = None  # nothing is counted while the model starts
        name = session.target.name
        self.status = f"starting {name}…" if session.target.is_local else f"model: {name}"

        def progress(step: str, done: int, total: int) -> None:
            percent = f" {100 * done // total}%" if total > 1 else ""
            self.app.call_from_thread(setattr, self, "status", f"{step}{percent}…")

        try:
            await off_loop(session.prepare_model, progress, True)
            await off_loop(session.typed_tokens, "warm up the tokenizer")
        except FoldchatError as error:
            self.status = f"{name}: {error}"
            self.notify(f"{error}. Pick another model with /model.", title="Model not available", severity="error")
            return
        settle_heap()
        try:
            await self.refresh_usage()  # the gauge is right by the time the model counts as ready
        finally:  # a count that fails must not leave every later prompt queued
            self.model_ready = True
            self.status = f"{name} · {session.target.window:,} token window"
        composer = self.composer  # it counts what is typed from now on (the session's current model)
        composer.count = lambda text: session.typed_tokens(text)
        composer.recount()  # a draft restored, or typed while the model started
        if self.unanswered():
            if self.prompted:  # typed while the model was starting: it was meant to go
                self.stream_reply()
            else:  # opened that way (an import, a crash before the reply): shown, sent only on a keypress
                self.mark_unanswered()

    def mark_unanswered(self) -> None:
        # the last message, mounted or not (opened at a search's match)
        self.transcript.set_last_note("unanswered: Ctrl+R (or /retry) sends it")
        self.notify("This conversation ends with a prompt that has no reply: Ctrl+R sends it.", timeout=10)

    def unanswered(self) -> bool:
        """The last prompt has no reply yet (a reply still streaming, or not yet asked for, is none)."""
        said = [
            data
            for data in self.transcript.said()  # all of them: the last may not be mounted
            if data.role != "system" and data.status not in ("unsent", "streaming")
        ]
        return bool(said) and said[-1].role == "user"

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

        def read() -> tuple[T | None, Conversation | None, Usage, UsageTotals]:
            result = first() if first is not None else None
            return result, session.conversation(), session.usage(), session.replies.usage_totals()

        result, conversation, usage, spent = await off_loop(read)
        self.show_title(conversation)
        self.set_usage(usage, spent)
        return result

    # -- composer -----------------------------------------------------------------------------------
    def on_text_area_changed(self, event: Composer.Changed) -> None:
        composer = self.typed_in = event.text_area  # its text is read when kept: joining it at every key is O(n)
        matches = completions(composer.document.get_line(0)) if composer.document.line_count == 1 else []
        suggestions = self.suggestions
        if matches or suggestions.option_count:  # most keystrokes: nothing to suggest, nothing to redo
            suggestions.clear_options()
            suggestions.add_options([Option(literal(f"{c.usage:<24} {c.help}"), id=c.name) for c in matches])
        suggestions.display = bool(matches)
        if matches:
            suggestions.highlighted = 0

    def on_composer_counted(self, event: Composer.Counted) -> None:
        """The composer counted what is typed (`Composer.count_typed`): the gauge shows it with the tray's."""
        typing = event.tokens + self.tray.tokens  # what the tray adds to the next message counts too
        if self.gauge_state.typing != typing:  # most counts of an emptied composer change nothing
            self.update_gauge(typing=typing)

    def on_composer_tab_pressed(self, _: Composer.TabPressed) -> None:
        suggestions = self.suggestions
        if suggestions.display and suggestions.option_count:
            option = suggestions.get_option_at_index(suggestions.highlighted or 0)
            composer = self.composer
            composer.text = f"/{option.id} "
            composer.move_cursor(composer.document.end)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "suggestions":
            composer = self.composer
            composer.text = f"/{event.option.id} "
            composer.focus()
            composer.move_cursor(composer.document.end)

    async def on_composer_submitted(self, event: Composer.Submitted) -> None:
        self.suggestions.display = False
        self.composer.clear_count()
        command = parse(event.text)
        if command is not None:
            await self.run_slash(*command)
            return
        text = event.text.strip("\n")
        self.prompted = True
        if self.editing is not None:
            await editing.resend(self, self.editing, text)
            return
        refused = self.model_ready and self.reply_underway() and refuse_while_replying(self, text)
        if refused or (attachments := await attachments_for(self, text)) is None:
            return
        if self.backend is None:
            self.queued.append(text)
            await self.transcript.append(MessageData(None, "user", visible(text), status="queued"))
            self.notify("Queued: it is sent as soon as the model is ready")
            return
        shown = tuple((visible(t), visible(c)) for t, c in shown_attachments(user_message(text, attachments)))
        prompt = MessageData(None, "user", visible(text), attachments=shown)
        reply_turn.drop_unused_reply_view(self.transcript)
        answering = self.model_ready and not self.reply_underway()
        # the reply's view comes with the prompt's, in one layout pass and one repaint of the transcript;
        # stream_reply uses it, or takes it away if no reply is asked for after all
        reply = self.reply_data() if answering else None
        views = await self.transcript.append_all([prompt] if reply is None else [prompt, reply], follow=True)
        backend = self.backend
        if not answering:  # stored now, answered once the model is ready (or by the reply underway)
            prompt.id = await off_loop(backend.add_user_message, text, attachments)
            if not self.model_ready:
                self.notify("Queued: it is sent as soon as the model is ready")
            return
        reply_view = views[-1]
        assert isinstance(reply_view, MessageView)
        self.transcript.prepared_reply = reply_view
        # the turn stores it (refused before storing if it cannot fit: `turn_refused`), and says so: `prompt_saved`
        self.stream_reply(prompt=Prompt(text, attachments, prompt))

    def on_attachment_tray_changed(self, event: AttachmentTray.Changed) -> None:
        self.update_gauge(typing=self.composer.typed_tokens + event.tokens)

    def on_composer_empty_backspace(self, _: Composer.EmptyBackspace) -> None:
        take_out_last(self)

    async def on_composer_path_pasted(self, event: Composer.PathPasted) -> None:
        await offer_pasted(self, event.text)

    async def on_composer_path_tab(self, event: Composer.PathTab) -> None:
        await complete_path(self, event.word)

    # -- slash commands, and what messages and fold markers ask for -----------------------------------
    @on(FoldMarker.Selected)
    async def inspect_fold(self, event: FoldMarker.Selected) -> None:
        await folds.inspect(self, event.fold_id)

    @on(MessageView.PinRequested)
    async def pin_message(self, event: MessageView.PinRequested) -> None:
        await pins.toggle_pin(self, event.view)

    @on(Composer.EditLastRequested)
    async def edit_last_prompt(self) -> None:
        await editing.edit_last(self)

    @on(MessageView.EditRequested)
    def edit_prompt(self, event: MessageView.EditRequested) -> None:
        assert event.view.data.id is not None
        editing.start_editing(self, event.view.data.id, event.view.data.text)

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
    def post_fold_event(self, event: FoldEvent) -> None:
        self.post_message(FoldEventPosted(event))  # thread-safe

    def on_fold_event_posted(self, message: FoldEventPosted) -> None:
        self.show_fold_event(message.event)

    def show_fold_event(self, event: FoldEvent) -> None:
        """A fold's progress under the title: started, each step, done."""
        self.folding = not isinstance(event, FoldCompleted | FoldFailedEvent)
        self.query_one(FoldProgressLine).show(event)

    @work(group="fold", exit_on_error=False)
    async def fold_history(self, force: bool, focus: str | None = None) -> bool:
        """/resummarize: fold now (`force`, with `focus`) and recount the gauge; True when folded. (A fold
        before a reply is part of the turn: `stream_reply`.)"""
        session = self.backend
        assert session is not None
        try:  # cancelled (quit): the fold's remaining requests are not made, and quitting waits for none
            if force:
                report = await in_thread(lambda: session.fold_now(focus, self.post_fold_event))
            else:
                report = await in_thread(lambda: session.auto.fold_if_needed(self.post_fold_event))
        except FoldchatError as error:
            self.fold_not_made(str(error), failed=True)
            return False
        folded = await self.show_fold_outcome(report, force)
        if force:
            await self.refresh_usage()
        return folded

    def fold_not_made(self, reason: str, failed: bool) -> None:
        self.folding = False
        if self.backend is not None:
            self.update_gauge(fold_paused=self.backend.auto.paused)
        if failed:
            self.notify(reason, title="Could not fold", severity="error")

    async def show_fold_outcome(self, report: FoldReport | None, force: bool) -> bool:
        """What a fold did, said: the transcript rebuilt around its marker and a toast, or why nothing was
        folded. True when the history was folded."""
        session = self.backend
        assert session is not None
        self.folding = False
        self.update_gauge(fold_paused=session.auto.paused)  # a forced fold re-arms automatic ones
        if report is None or not report.compressed:
            if force:
                reason = report.reason if report is not None else "the conversation is empty"
                # stays under the title until the next reply: a toast alone is gone before it is read
                self.status = f"Nothing folded: {reason}"
                self.notify(f"Nothing folded: {reason}")
            elif report is not None and report.failed:
                self.notify(f"Could not fold: {report.reason}", title="Fold failed", severity="warning")
            return False
        await self.refresh_transcript()
        self.status = self.model_status()
        restored = f" · {report.restored_identifiers} identifiers restored" if report.restored_identifiers else ""
        self.notify(
            # the report's numbers: the marker and the inspector show the same stored ones
            f"Folded {report.folded_messages} messages · {report.tokens_before:,} → {report.tokens_after:,} tokens"
            f" · {report.summarizer}{restored}",
            title="Folded",
        )
        if report.rules_notice():
            self.notify(report.rules_notice() or "", title="Standing rules", severity="warning", timeout=20)
        return True

    def model_status(self) -> str:
        session = self.backend
        return "" if session is None else f"{session.target.name} · {session.target.window:,} token window"

    async def consent_to_fold(self, report: FoldReport) -> bool:
        """`fold.auto = "ask"` (or off, and the send would not fit): a dialog asks; yes folds."""
        consented: bool = await self.app.push_screen_wait(FoldConsent(report.reason, forward=self.composer))
        return consented

    # -- a reply: the transcript's worker runs the turn (widgets/reply_turn.py); its facts come up here ----
    @property
    def streaming(self) -> bool:
        return self.transcript.streaming

    def reply_underway(self) -> bool:
        return reply_turn.reply_underway(self.transcript)

    def reply_data(self) -> MessageData:
        """A reply about to stream (its view shows the wait, then the text)."""
        return reply_data(None if self.backend is None else self.backend.target.name)

    def stream_reply(self, regenerate: bool = False, prompt: Prompt | None = None) -> Worker[None] | None:
        """Start a turn (`Session.turn`: store `prompt` if given, fold if needed, then the reply) in the
        transcript's reply worker."""
        transcript = self.transcript
        session = self.backend
        if session is None or not self.model_ready:
            if transcript.prepared_reply is not None:
                transcript.forget(transcript.prepared_reply)
                transcript.prepared_reply = None
            return None
        return reply_turn.start_reply(transcript, session, self.consent_to_fold, regenerate, prompt)

    @on(TurnStarted)
    def turn_started(self) -> None:
        self.composer.cursor_blink = False  # a blink is a frame of its own while the reply paints

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
            await self.show_fold_outcome(message.report, force=False)
        finally:
            message.shown.set()  # the turn goes on: its reply takes a view in the rebuilt transcript

    @on(FoldNotMade)
    @work(group="turn", exit_on_error=False)
    async def turn_fold_not_made(self, message: FoldNotMade) -> None:
        event = message.event
        self.fold_not_made(event.reason, failed=event.failed and event.report is None)
        if event.report is not None:
            await self.show_fold_outcome(event.report, force=False)

    @on(PromptSaved)
    def prompt_saved(self, message: PromptSaved) -> None:
        """The gauge holds the prompt now, not after the reply; a new conversation has its title."""
        self.show_title(message.conversation)
        self.set_usage(message.usage)

    @on(PromptRefused)
    def turn_refused(self, message: PromptRefused) -> None:
        refuse_prompt(self, message)

    @on(TurnOver)
    @work(group="turn", exit_on_error=False)
    async def turn_over(self, message: TurnOver) -> None:
        """The gauge recounted (the reply is in the context now), then what waited for the turn: a
        /resummarize typed meanwhile, the next fold prepared, a prompt sent meanwhile answered."""
        session = message.session
        try:
            self.composer.cursor_blink = True
            self.folding = False  # stopped mid-fold: the fold finishes in its thread, unseen
            self.status = self.model_status()
            if (ended := message.ended) is not None:  # the engine's end of the turn: nothing is asked again
                self.set_usage(ended.usage, ended.spent)
                prefold_due: bool | None = ended.prefold_due
            else:  # stopped: the partial reply is in the context, counted now
                prefold_due = await self.refresh_usage(session.auto.prefold_due)
        finally:
            self.transcript.streaming = False
        if message.stopped:
            return
        if self.fold_requested is not None:
            focus, self.fold_requested = self.fold_requested, None
            await folds.resummarize(self, focus)
            prefold_due = await off_loop(session.auto.prefold_due)
        self.start_prefold(bool(prefold_due))
        idle_fold.arm(self)  # folded unasked if it stays idle past the provider's prompt-cache lifetime
        if self.unanswered():
            self.stream_reply()

    def start_prefold(self, due: bool) -> None:
        """Past the reset ratio (`due`: `Session.auto.prefold_due`), the next fold is prepared in a thread worker,
        so that at the trigger it applies at once (engine/fold/prefold.py). The engine runs one at a time and
        keeps its failures quiet; the worker touches no widget."""
        session = self.backend
        if session is not None and due:
            self.run_worker(
                session.auto.prepare_fold, name="prepare_fold", group="prefold", thread=True, exit_on_error=False
            )

    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's own workers of `group` (a reply's worker is the transcript's: `action_stop`)."""
        self.workers.cancel_group(self, group)

    def action_stop(self) -> None:
        if self.editing is not None:
            editing.stop_editing(self)
            self.composer.clear()
            self.notify("Edit cancelled")
        elif self.streaming:
            self.workers.cancel_group(self.transcript, "reply")
            self.notify("Stopped: the partial reply is kept")

    def action_back(self) -> None:
        """Esc backs out one level: stops a streaming reply or cancels an edit, else closes the suggestions, else returns
        to the composer from wherever focus is (the transcript, a fold marker)."""
        if self.streaming or self.editing is not None:  # an edit in progress is cancelled first
            self.action_stop()
        elif self.suggestions.display:
            self.suggestions.display = False
        else:
            self.composer.focus()

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

    def action_retry(self) -> None:
        if self.backend is None or not self.model_ready or self.streaming:
            self.notify("Nothing to regenerate right now")
            return
        if self.unanswered():  # a prompt opened unanswered: this is the keypress that sends it
            self.transcript.set_last_note("")
            self.stream_reply()
            return
        self.transcript.mark_last_replies_replaced()  # now: a fold may come before the new reply
        self.stream_reply(regenerate=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # a bug in a worker becomes a one-line notification, never a traceback on screen
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            self.log.error(f"worker {event.worker.name} failed", error)
            self.notify(f"{type(error).__name__}: {error}", title="Something went wrong", severity="error", timeout=20)

    # -- actions ------------------------------------------------------------------------------------
    def action_help(self) -> None:
        from .info import InfoScreen

        self.app.push_screen(InfoScreen(help_markdown(), "help-screen"))

    async def action_model(self) -> None:
        await self.run_slash("model")

    async def action_history(self) -> None:
        await self.run_slash("history")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, MessageView):
            self.selected_message = event.widget

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
            self.keep_draft()
            self.backend.close()

    def keep_draft(self) -> None:
        """What is typed and not sent is kept for this conversation (a quit, a switch): see `restore_draft`."""
        if self.backend is not None and self.editing is None:  # an edit of an old prompt is not a draft
            composers = self.query(Composer)  # at unmount the composer is gone: it is `typed_in`, still whole
            text = composers.first().text if composers else (self.typed_in.text if self.typed_in else "")
            self.backend.workspace.remembered.set_draft(self.backend.conversation_id, text)

    def restore_draft(self) -> None:
        composer = self.composer
        if self.backend is not None and not composer.text:
            draft = self.backend.workspace.remembered.draft(self.backend.conversation_id)
            if draft:
                composer.text = draft
                composer.move_cursor(composer.document.end)
