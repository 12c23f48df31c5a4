"""The slash commands of the chat screen, as a mixin: one `slash_<name>` coroutine per command.

`tui/commands.py` maps names to these handlers. `ChatScreen` provides `backend` (the engine's
`Session`), `streaming`, `fold_history`, `refresh_transcript`, `prepare_model` and the rest of the
state they use; this module only turns commands into `Session` calls and screens.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from foldchat.engine import FoldchatError, said, visible
from textual import work

from ..widgets.composer import Composer
from ..widgets.fold_marker import FoldMarker
from ..widgets.message import MessageView
from ..widgets.transcript import Transcript

if TYPE_CHECKING:
    from foldchat.engine import Session


class SlashCommands:
    """Mixed into `ChatScreen` (a Textual `Screen`)."""

    backend: Session | None
    selected_message: MessageView | None
    streaming: bool
    fold_requested: str | None
    editing: int | None
    """The id of the prompt being edited in the composer (↑ or `e`); Enter resends, Esc cancels."""

    @property
    def session(self) -> Session:
        assert self.backend is not None, "slash commands that need the session run once it is open"
        return self.backend

    async def slash_help(self, _: str) -> None:
        await self.run_action("help")

    async def slash_quit(self, _: str) -> None:
        await self.run_action("app.quit")

    # -- folds ------------------------------------------------------------------------------------
    async def slash_resummarize(self, arg: str) -> None:
        if arg == "--preview" or arg.startswith("--preview "):
            self.preview_fold(arg.removeprefix("--preview").strip() or None)
            return
        if self.streaming:
            self.fold_requested = arg
            self.notify("Folding as soon as the reply is complete")
            return
        self.fold_history(force=True, focus=arg or None)

    async def slash_fold(self, arg: str) -> None:
        labels = {"on": "on (fold at the trigger)", "ask": "ask first", "off": "off (a send that would not fit asks)"}
        if arg:
            try:
                self.session.set_fold_auto(arg.lower())
            except FoldchatError as error:
                self.notify(str(error), severity="error")
                return
        self.notify(f"Automatic folds: {labels[self.session.fold_auto]}")

    @work(group="fold", exit_on_error=False)
    async def preview_fold(self, focus: str | None) -> None:
        """Compute the fold, show it, and apply exactly that result only if the user says so."""
        from .fold_preview import FoldPreview

        try:
            plan = await asyncio.to_thread(self.session.preview_fold, focus)
            if plan is None:
                self.notify("Nothing to fold: the conversation is empty")
                return
            if not await self.app.push_screen_wait(FoldPreview(plan)):
                told = "Fold preview discarded" if plan.report.compressed else f"Nothing folded: {plan.report.reason}"
                self.notify(f"{told}: nothing changed" if plan.report.compressed else told)
                return
            report = await asyncio.to_thread(self.session.apply_fold, plan)
        except FoldchatError as error:
            self.notify(str(error), title="Could not fold", severity="error")
            return
        await self.refresh_transcript()
        await self.refresh_usage()
        if report is not None and report.compressed:
            self.notify(
                f"Folded {report.folded_messages} messages · {report.tokens_before:,} → {report.tokens_after:,} tokens"
            )

    async def slash_unfold(self, _: str) -> None:
        fold = await asyncio.to_thread(self.session.active_fold)
        if fold is None:
            self.notify("No fold to undo")
            return
        from .confirm import ConfirmDialog

        async def answered(confirmed: bool | None) -> None:
            if confirmed:
                await self.undo(fold.id)

        question = f"Undo fold {fold.id}? The context goes back to the original messages."
        self.app.push_screen(ConfirmDialog(question, "Undo fold"), answered)

    async def undo(self, fold_id: int) -> None:
        await asyncio.to_thread(self.session.undo_fold, fold_id)
        await self.refresh_transcript()
        self.notify(f"Fold {fold_id} undone: the context holds the original messages again")

    async def slash_folds(self, _: str) -> None:
        fold = await asyncio.to_thread(self.session.active_fold)
        if fold is None:
            self.notify("No folds yet: /resummarize folds now")
            return
        await self.inspect(fold.id)

    async def inspect(self, fold_id: int) -> None:
        from ..presenters import fold_view
        from .fold_inspector import FoldInspector

        view = await asyncio.to_thread(fold_view, self.session, fold_id)
        self.app.push_screen(FoldInspector(view), self.on_inspector_done)

    async def on_inspector_done(self, action: Any) -> None:
        if action is None or self.backend is None:
            return
        if action.action == "undo":
            await self.undo(action.fold_id)
        elif action.action == "edit":
            await asyncio.to_thread(self.session.edit_fold, action.fold_id, action.text)
            await self.refresh_transcript()
            self.notify("Snapshot edited: the corrected text is what the model sees from now on")
        elif action.action == "refold":
            await self.slash_resummarize(action.text)
        elif action.action == "preview":
            self.preview_fold(action.text or None)
        elif action.action == "drop_rule":
            await self.drop_rule(action.fold_id, action.text)

    async def drop_rule(self, fold_id: int, number: str) -> None:
        try:
            rule = await asyncio.to_thread(self.session.drop_rule, fold_id, int(number) if number.isdigit() else 0)
        except FoldchatError as error:
            self.notify(str(error), severity="error")
            return
        await self.refresh_transcript()
        self.notify(f"Rule dropped from the snapshot: {rule}", markup=False)

    async def on_fold_marker_selected(self, event: FoldMarker.Selected) -> None:
        await self.inspect(event.fold_id)

    # -- pins -------------------------------------------------------------------------------------
    async def slash_pin(self, _: str) -> None:
        """The message selected last (Tab or a click into the transcript), else the last message of any
        role; the toast names it, so a pin never lands somewhere unseen."""
        views = [v for v in self.query_one(Transcript).message_views() if v.data.id is not None]
        selected = self.selected_message
        view = selected if selected is not None and selected in views else (views[-1] if views else None)
        if view is None:
            self.notify("Nothing to pin yet")
            return
        await self.toggle_pin(view)

    async def on_message_view_pin_requested(self, event: MessageView.PinRequested) -> None:
        await self.toggle_pin(event.view)

    async def toggle_pin(self, view: MessageView) -> None:
        assert view.data.id is not None
        pinned = not view.pinned
        await asyncio.to_thread(self.session.pin, view.data.id, pinned)
        numbers = await asyncio.to_thread(self.session.message_numbers)
        self.query_one(Transcript).set_pinned(view, pinned)
        who = {"user": "your message", "assistant": "the reply"}.get(view.data.role, f"the {view.data.role} message")
        words = " ".join(view.data.text.split())
        quote = words[:48] + ("…" if len(words) > 48 else "")
        which = f"message {numbers.get(view.data.id, view.data.id)}, {who} “{quote}”"
        self.notify(f"Pinned {which}: quoted verbatim in every snapshot" if pinned else f"Unpinned {which}")

    # -- edit and resend --------------------------------------------------------------------------
    async def on_composer_edit_last_requested(self, _: Composer.EditLastRequested) -> None:
        if self.backend is None:
            return
        before = self.editing  # editing one already: ↑ on its first line walks back to the one before
        last = await asyncio.to_thread(self.session.last_prompt, before)
        if last is None:
            self.notify("No earlier prompt" if before is not None else "No prompt to edit yet")
            return
        self.start_editing(last.id, said(last.message))  # its attachments stay with it (Session.edit_and_resend)

    def on_message_view_edit_requested(self, event: MessageView.EditRequested) -> None:
        assert event.view.data.id is not None
        self.start_editing(event.view.data.id, event.view.data.text)

    def start_editing(self, message_id: int, text: str) -> None:
        if self.streaming:
            self.notify("A reply is streaming: Esc stops it, then edit", severity="warning")
            return
        self.editing = message_id
        composer = self.query_one(Composer)
        composer.text = text
        composer.border_title = "Editing an earlier prompt · Enter resend (later messages are replaced) · Esc cancel"
        composer.add_class("-editing")
        composer.focus()
        composer.move_cursor(composer.document.end)

    def stop_editing(self) -> None:
        self.editing = None
        composer = self.query_one(Composer)
        composer.border_title = Composer.HINT
        composer.remove_class("-editing")

    async def resend(self, message_id: int, text: str) -> None:
        """Supersede the prompt and what follows it, store `text` as the new prompt and answer it."""
        self.stop_editing()
        try:
            _, undone = await asyncio.to_thread(self.session.edit_and_resend, message_id, text)
        except FoldchatError as error:
            self.notify(str(error), title="Cannot resend", severity="error", markup=False)
            return
        await self.refresh_transcript()
        if undone:
            folds = ", ".join(str(f) for f in undone)
            self.notify(f"Fold {folds} undone: it covered the edited prompt", title="Edited", severity="warning")
        self.stream_reply()

    # -- the model --------------------------------------------------------------------------------
    async def slash_model(self, arg: str) -> None:
        from ..presenters import model_choices
        from .model_picker import ModelPicker

        if arg:
            await self.switch_model(arg)
            return
        session = self.session  # the picker opens at once and reads the models in a worker
        self.app.push_screen(ModelPicker(lambda: model_choices(session), session.target.name), self.on_model_picked)

    async def on_model_picked(self, name: str | None) -> None:
        if name:
            await self.switch_model(name)

    async def switch_model(self, name: str) -> None:
        session = self.session
        try:
            target, usage = await asyncio.to_thread(session.check_model, name)
        except FoldchatError as error:
            self.notify(str(error), title="Cannot switch", severity="error")
            return
        if usage.used >= usage.trigger:
            self.notify(f"{name}: {usage.used:,} of {usage.window:,} tokens is over the fold trigger; "
                        "the history folds before the next reply", title="Model switched", severity="warning")  # fmt: skip
        else:
            self.notify(
                f"{name}: the conversation fits ({usage.used:,} of {usage.window:,} tokens)", title="Model switched"
            )
        await asyncio.to_thread(session.switch_model, target)
        self.set_usage(usage)
        self.prepare_model()

    async def slash_context(self, _: str) -> None:
        from ..presenters import context_breakdown
        from .info import InfoScreen

        typed = self.gauge_state.typing
        text = await asyncio.to_thread(context_breakdown, self.session, typed)
        self.app.push_screen(InfoScreen(text, "context-screen"))

    # -- conversations ----------------------------------------------------------------------------
    async def slash_new(self, _: str) -> None:
        await self.switch_conversation(None)

    async def switch_conversation(self, conversation_id: int | None) -> None:
        if self.streaming:
            self.workers.cancel_group(self, "reply")
        self.workers.cancel_group(self, "prefold")  # the session also drops what it would have prepared
        previous = self.session.target.name
        self.keep_draft()
        self.query_one(Composer).clear()
        await asyncio.to_thread(self.session.switch_conversation, conversation_id)
        await self.refresh_transcript()
        self.restore_draft()
        if self.session.target.name != previous:
            self.prepare_model()
        opened = self.session.conversation_id
        self.notify(
            f"Conversation {opened}" if opened is not None else "New conversation: stored with its first message"
        )

    async def slash_history(self, _: str) -> None:
        from .history import ConversationRow, HistoryScreen

        session = self.session
        rows = [
            ConversationRow(c.id, c.title, c.model, c.updated_at, c.message_count)
            for c in await asyncio.to_thread(session.conversations)
        ]

        def search(text: str) -> list[ConversationRow]:
            return [
                ConversationRow(h.conversation.id, h.conversation.title, h.conversation.model,
                                h.conversation.updated_at, h.conversation.message_count, visible(h.excerpt))
                for h in session.search(text)
            ]  # fmt: skip

        self.app.push_screen(HistoryScreen(rows, search), self.on_history_done)

    async def on_history_done(self, action: Any) -> None:
        if action is None or self.backend is None:
            return
        session = self.session
        if action.action == "resume":
            await self.switch_conversation(action.conversation_id)
        elif action.action == "rename":
            await asyncio.to_thread(session.rename_conversation, action.conversation_id, action.title)
            await self.refresh_title()
            self.notify(f"Renamed to “{action.title}”")
        elif action.action == "delete":
            if action.conversation_id == session.conversation_id:
                self.notify("That is the open conversation: /new first, then delete it", severity="warning")
                return
            await asyncio.to_thread(session.delete_conversation, action.conversation_id)
            self.notify(f"Conversation {action.conversation_id} deleted")

    async def slash_system(self, arg: str) -> None:
        if not arg:
            prompts = await asyncio.to_thread(self.session.system_prompts)
            self.notify("\n".join(prompts) or "No system prompt. /system TEXT sets one.", title="System prompt")
            return
        await asyncio.to_thread(self.session.set_system_prompt, arg)
        await self.refresh_transcript()
        self.notify("System prompt set")

    async def slash_export(self, arg: str) -> None:
        fmt = arg or "md"
        if fmt not in ("md", "json"):
            self.notify("Use /export md or /export json", severity="warning")
            return
        try:  # an unwritable exports folder is a message, not a crash
            path = await asyncio.to_thread(self.session.write_export, fmt)
        except FoldchatError as error:
            self.notify(str(error), title="Export failed", severity="error", markup=False)
            return
        self.notify(f"Exported to {path}", title="Exported", markup=False)

    async def slash_continue(self, _: str) -> None:
        """Ask for the rest of a reply the output cap cut off: one ordinary user message, visible as such."""
        from .chat import CONTINUE_PROMPT

        await self.on_composer_submitted(Composer.Submitted(CONTINUE_PROMPT))

    async def slash_retry(self, _: str) -> None:
        self.action_retry()
