"""The conversation on screen, and the send: `Conversation` composes the transcript, the fold's progress
line, the command suggestions, the attachment tray and the composer, and owns what Enter does with them.

A prompt goes to the engine's turn (`Session.turn`) in the transcript's reply worker (widgets/reply_turn.py),
which paints the reply. What the screen must know comes up as messages: a command typed (`CommandTyped`),
what the composer and the tray would add to the context (`Typed`), and the turn's own messages
(`PromptSaved`, `FoldShown`, `TurnOver`, ...: reply_turn.py).

The screen's state comes down: the session once it is open (`backend`), whether the model is ready
(`model_ready`), whether a fold runs (`folding`). What the conversation asks of the screen it is given
when made: the commands to suggest (`commands`: they act on the screen), how to ask consent for a fold (a
dialog), and how to re-read the transcript with the title and the gauge (`reload`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from foldchat.engine import FoldEvent, off_loop, shown_attachments, user_message, visible
from textual import events, getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import OptionList, TextArea
from textual.worker import Worker

from ..widgets import reply_turn
from ..widgets.attachment_tray import AttachmentTray
from ..widgets.composer import Composer
from ..widgets.fold_progress import FoldEventPosted, FoldProgressLine
from ..widgets.latest import Latest
from ..widgets.message import MessageData, MessageView
from ..widgets.reply_face import reply_data
from ..widgets.transcript import Transcript
from . import editing
from .attaching import attachments_for, complete_path, offer_pasted, take_out_last
from .refusals import refuse_while_replying
from .suggestions import Command, CommandSuggestions

if TYPE_CHECKING:
    from foldchat.engine import FoldReport, Session


def parse(text: str) -> tuple[str, str] | None:
    """`("model", "gpt-4o")` for "/model gpt-4o"; None when `text` is not a slash command ("//" starts a
    message that begins with a slash)."""
    text = text.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, arg = text[1:].partition(" ")
    return name.lower(), arg.strip()


class Conversation(Vertical):
    DEFAULT_CSS = "Conversation { height: 1fr; }"
    # the transcript pages from wherever focus is in the conversation (the composer most of the time), unless
    # the composer holds more than it shows: then the keys are its own (`check_action`)
    BINDINGS = [
        Binding("pageup", "page(-1)", "Page up", show=False, priority=True),
        Binding("pagedown", "page(1)", "Page down", show=False, priority=True),
    ]

    # the screen's state, bound down (ChatScreen.compose)
    folding: var[bool] = var(False)
    """A fold runs (a turn's or /resummarize's): its progress line shows."""
    model_ready: var[bool] = var(False)
    """The model is started and counts: a prompt sent before is stored and answered once it is."""

    composer = getters.query_one(Composer)
    transcript = getters.query_one(Transcript)
    tray = getters.query_one(AttachmentTray)
    suggestions = getters.query_one(CommandSuggestions)

    # what it posts up, besides the turn's own messages (widgets/reply_turn.py, posted by the reply worker)
    @dataclass
    class CommandTyped(Message):
        """Enter on a slash command: the screen runs it (`name`, `arg`)."""

        name: str
        arg: str

    class Typed(Latest):
        """What the composer's text and the tray's attachments would add to the context, in tokens."""

        def __init__(self, tokens: int) -> None:
            super().__init__()
            self.tokens = tokens

    def __init__(
        self,
        commands: Callable[[str], Sequence[Command]],
        consent: Callable[[FoldReport], Awaitable[bool]],
        reload: Callable[[int | None], Awaitable[None]],
    ) -> None:
        super().__init__()
        self.commands, self.consent, self.reload = commands, consent, reload
        self.backend: Session | None = None
        """The open session; None while the conversation opens (the screen sets it)."""
        self.queued: list[str] = []
        """Prompts sent before the session opened: stored by `send_queued`."""
        self.typed_in: TextArea | None = None
        self.editing: int | None = None
        """The id of the earlier prompt being edited in the composer."""
        self.selected_message: MessageView | None = None  # the last message focused: what /pin pins
        self.prompted = False
        """The user sent a prompt in this session (one typed before the model was ready is answered when
        it is); a conversation opened with an unanswered prompt is never sent without a keypress."""

    @property
    def session(self) -> Session:
        assert self.backend is not None, "what needs the session runs once it is open"
        return self.backend

    def compose(self) -> ComposeResult:
        yield Transcript()
        yield FoldProgressLine(id="fold-progress").data_bind(active=Conversation.folding)
        yield CommandSuggestions(self.commands)
        yield AttachmentTray()
        yield Composer()

    def on_mount(self) -> None:
        for composer in self.query(Composer):  # none when the app stops while it starts (a crash at mount)
            composer.focus()

    async def refresh_transcript(self, at: int | None = None) -> None:
        """Re-read the transcript, the title and the gauge (the screen's `reload`)."""
        await self.reload(at)

    # -- typing -----------------------------------------------------------------------------------------
    def on_text_area_changed(self, event: Composer.Changed) -> None:
        self.typed_in = event.text_area  # its text is read when kept: joining it at every key is O(n)
        self.suggestions.offer(event.text_area)

    def on_composer_counted(self, event: Composer.Counted) -> None:
        """The composer counted what is typed (`Composer.count_typed`): up with what the tray adds."""
        event.stop()
        self.post_message(self.Typed(event.tokens + self.tray.tokens))

    def on_attachment_tray_changed(self, event: AttachmentTray.Changed) -> None:
        event.stop()
        self.post_message(self.Typed(self.composer.typed_tokens + event.tokens))

    def on_composer_tab_pressed(self, _: Composer.TabPressed) -> None:
        if (name := self.suggestions.highlighted_name()) is not None:
            self._complete_command(name)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "suggestions":
            self._complete_command(event.option.id)
            self.composer.focus()

    def _complete_command(self, name: str | None) -> None:
        composer = self.composer
        composer.text = f"/{name} "
        composer.move_cursor(composer.document.end)

    def on_composer_tab_out(self, _: Composer.TabOut) -> None:
        """Tab from the composer selects the latest message (↑ walks back from there); with none, the next
        thing on the screen."""
        items = [w for w in self.screen.focus_chain if w.parent is self.transcript]
        if items:
            items[-1].focus()
        else:
            self.screen.focus_next()

    def close_suggestions(self) -> bool:
        """Esc: the suggestions close; True when they were open."""
        return self.suggestions.close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "page":
            return True
        composer = self.composer
        return not (composer.has_focus and composer.max_scroll_y > 0)

    def action_page(self, pages: int) -> None:
        transcript = self.transcript
        transcript.scroll_page_down() if pages > 0 else transcript.scroll_page_up()

    def on_composer_empty_backspace(self, _: Composer.EmptyBackspace) -> None:
        take_out_last(self)

    async def on_composer_path_pasted(self, event: Composer.PathPasted) -> None:
        await offer_pasted(self, event.text)

    async def on_composer_path_tab(self, event: Composer.PathTab) -> None:
        await complete_path(self, event.word)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, MessageView):
            self.selected_message = event.widget

    @on(FoldEventPosted)
    def show_fold_event(self, message: FoldEventPosted) -> None:
        """A fold's progress (a turn's, or one the screen runs): shown on the line; the screen sees it next."""
        self.query_one(FoldProgressLine).show(message.event)

    def post_fold_event(self, event: FoldEvent) -> None:
        self.post_message(FoldEventPosted(event))  # thread-safe: the engine calls it from its fold's thread

    # -- the send -----------------------------------------------------------------------------------------
    async def on_composer_submitted(self, event: Composer.Submitted) -> None:
        event.stop()
        self.suggestions.display = False
        self.composer.clear_count()
        if (command := parse(event.text)) is not None:
            self.post_message(self.CommandTyped(*command))
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
        if not answering:  # stored now, answered once the model is ready (or by the reply underway)
            prompt.id = await off_loop(self.backend.add_user_message, text, attachments)
            if not self.model_ready:
                self.notify("Queued: it is sent as soon as the model is ready")
            return
        reply_view = views[-1]
        assert isinstance(reply_view, MessageView)
        self.transcript.prepared_reply = reply_view
        # the turn stores it (refused before storing if it cannot fit: the screen's `PromptRefused`), and says
        # so: `PromptSaved`
        self.stream_reply(prompt=reply_turn.Prompt(text, attachments, prompt))

    async def send_queued(self) -> bool:
        """What was sent before the session opened, stored now (answered once the model is ready). True
        when there was some: the transcript is re-read."""
        for text in self.queued:
            await off_loop(self.session.add_user_message, text)
        sent, self.queued = bool(self.queued), []
        return sent

    @property
    def streaming(self) -> bool:
        return self.transcript.streaming

    def reply_underway(self) -> bool:
        return reply_turn.reply_underway(self.transcript)

    def reply_data(self) -> MessageData:
        """A reply about to stream (its view shows the wait, then the text)."""
        return reply_data(None if self.backend is None else self.backend.target.name)

    def stream_reply(self, regenerate: bool = False, prompt: reply_turn.Prompt | None = None) -> Worker[None] | None:
        """Start a turn (`Session.turn`: store `prompt` if given, fold if needed, then the reply) in the
        transcript's reply worker."""
        transcript = self.transcript
        session = self.backend
        if session is None or not self.model_ready:
            if transcript.prepared_reply is not None:
                transcript.forget(transcript.prepared_reply)
                transcript.prepared_reply = None
            return None
        return reply_turn.start_reply(transcript, session, self.consent, regenerate, prompt)

    @on(reply_turn.TurnStarted)
    def turn_started(self) -> None:
        self.composer.cursor_blink = False  # a blink is a frame of its own while the reply paints

    def turn_ended(self) -> None:
        """The screen has handled the turn's end (`TurnOver`): no reply is underway any more."""
        self.composer.cursor_blink = True
        self.transcript.streaming = False

    def answer_unanswered(self) -> None:
        """The model is ready: a prompt typed while it started is answered; one the conversation was opened
        with (an import, a crash before the reply) is shown and sent only on a keypress (`retry`)."""
        if not self.transcript.unanswered():
            return
        if self.prompted:
            self.stream_reply()
        else:  # the last message, mounted or not (opened at a search's match)
            self.transcript.set_last_note("unanswered: Ctrl+R (or /retry) sends it")
            self.notify("This conversation ends with a prompt that has no reply: Ctrl+R sends it.", timeout=10)

    def retry(self) -> None:
        """Ctrl+R: send a prompt opened unanswered, else regenerate the last reply."""
        if self.backend is None or not self.model_ready or self.streaming:
            self.notify("Nothing to regenerate right now")
            return
        if self.transcript.unanswered():  # a prompt opened unanswered: this is the keypress that sends it
            self.transcript.set_last_note("")
            self.stream_reply()
            return
        self.transcript.mark_last_replies_replaced()  # now: a fold may come before the new reply
        self.stream_reply(regenerate=True)

    def stop(self) -> bool:
        """Esc: cancel an edit, else stop a streaming reply (its text is kept). True when there was one."""
        if self.editing is not None:
            editing.stop_editing(self)
            self.composer.clear()
            self.notify("Edit cancelled")
        elif self.streaming:
            views = self.transcript.message_views()
            began = bool(views) and views[-1].data.role == "assistant" and bool(views[-1].data.text.strip())
            self.workers.cancel_group(self.transcript, "reply")
            said = "Stopped: the partial reply is kept" if began else "Stopped before the reply began: Ctrl+R asks again"
            self.notify(said)
        else:
            return False
        return True

    @on(Composer.EditLastRequested)
    async def edit_last_prompt(self) -> None:
        await editing.edit_last(self)

    @on(MessageView.EditRequested)
    def edit_prompt(self, event: MessageView.EditRequested) -> None:
        assert event.view.data.id is not None
        editing.start_editing(self, event.view.data.id, event.view.data.text)

    # -- the draft ----------------------------------------------------------------------------------------
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
