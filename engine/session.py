"""The application API: one open conversation and the model it talks to.

`Session` is what the TUI and `foldchat ask` drive; neither touches the store, the registry or the
fold pipeline directly. It holds the conversation's parts, each one noun of docs/design.md, and faces
call them directly: `context` (the transcript and the context built from it, context.py), `chain` (its
folds, fold/chain.py), `auto` (automatic folding with consent, pause and pre-fold, autofold.py),
`replies` (replies streamed and saved, replies.py). The session itself chooses and switches the model
and the conversation, counts for the gauge, runs a whole turn (`turn`, turn.py) and coordinates what
spans parts (a fold by hand, then the local model reading the new context ahead).

A new conversation is not stored until it has something in it: a `Session` on a new conversation
(`conversation_id` None) reads as empty, and its first user message or system prompt creates the row,
with the current model. So /new, `--new` and a first start leave no empty conversation behind.

Opening is cheap (config + database); `connect()` resolves the model (and loads litellm, unless the
model is the embedded local one), so a UI can show the transcript first. Every method is blocking and
thread-safe enough to run in a worker thread, and a face on an event loop awaits it through `off_loop`
(blocking.py), the one place the hop is written; `reply` and `turn` are async iterators.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Unpack

from . import snapshot as snap
from .attachments import Attachment, user_message
from .autofold import AutoFold
from .closing import ClosedOnExit
from .context import Context, Usage
from .errors import FoldchatError, UsageError
from .events import EventSink, ignore_events
from .fold.chain import FoldChain, FoldPlan
from .fold.report import FoldReport
from .lazy import load_litellm
from .local.gguf import Progress
from .local.model import batch_threads
from .local.prefix_warm import WARM_TIMEOUT, PrefixWarmer
from .messages import Message
from .options import OpenOptions
from .providers.events import Finished, Waiting
from .providers.registry import keyed_models
from .providers.target import ModelTarget
from .references import body
from .replies import Replies, ReplyEvent
from .snapshot_edit import checked_edit
from .store import Conversation
from .tokens import TokenCounter
from .turn import TurnEvent, TurnOptions, run_turn
from .workspace import Workspace

log = logging.getLogger(__name__)


class Session(ClosedOnExit):
    def __init__(self, workspace: Workspace, conversation_id: int | None, model_name: str) -> None:
        self.workspace = workspace
        self.settings = workspace.settings
        self.store = workspace.store
        """The database (for the engine, tests and tools; the faces go through the parts below)."""
        self.registry = workspace.registry
        self.folding = threading.RLock()
        """One fold at a time, whichever conversation's chain makes it (`FoldChain.folding`)."""
        self._auto_recall = self.settings.fold.auto_recall  # /recall on|off outlives a change of conversation
        self.context, self.chain, self.replies = self._parts_for(conversation_id)
        self.model_name = model_name
        self._target: ModelTarget | None = None
        self.auto = AutoFold(self)
        """Automatic folding: when, with consent, paused after failures, prepared ahead (autofold.py)."""
        self.warmer = PrefixWarmer()
        """The local model reading a changed context ahead (`read_ahead`), so the next send is quick."""

    @classmethod
    def open(cls, options: OpenOptions | None = None, workspace: Workspace | None = None) -> Session:
        """Settings, database and conversation: enough to show the transcript (no litellm yet).

        `workspace`: one already open for `options` (`foldchat ask` opens it first, to start the local
        model early); the session then owns it and closes it."""
        options = options or OpenOptions()
        workspace = workspace or Workspace.open(options)
        conversation = workspace.choose_conversation(options.conversation, options.new)
        name = workspace.choose_model(conversation, options.model)
        return cls(workspace, conversation.id if conversation is not None else None, name)

    def close(self) -> None:
        self.workspace.close()

    def _parts_for(self, conversation_id: int | None) -> tuple[Context, FoldChain, Replies]:
        """A conversation's context, fold chain and replies, sharing one `Context`."""
        context = Context(self.store, self.registry, self.settings, conversation_id)
        replies = Replies(context)
        replies.read_estimate = self._read_estimate
        replies.at_send.on = self._auto_recall
        return context, FoldChain(context, self.folding), replies

    @property
    def conversation_id(self) -> int | None:
        """None while the conversation is new and empty (not stored yet)."""
        return self.context.conversation_id

    def conversation(self) -> Conversation | None:
        return None if self.conversation_id is None else self.store.conversation(self.conversation_id)

    # -- the model --------------------------------------------------------------------------------
    def connect(self, remember: bool = False) -> ModelTarget:
        """Slow for a hosted model (imports litellm): resolve the model so tokens can be counted and
        replies sent. The embedded local model needs no litellm (its import costs seconds): its server is launched
        here, and litellm loads only when something first needs it (a hosted model, its prices).

        With `remember`, the model becomes the conversation's, and a change from the model it had
        makes the next fold check a switch (docs/design.md §5); `foldchat ask` does this on every call.
        """
        self.registry.launch_early(self.model_name)  # the local model loads while the rest does
        self._target = self.workspace.resolve_model(self.model_name)
        if not self._target.backend.streams_directly:
            load_litellm()  # paid here, in the caller's worker, rather than on the first keystroke or send
        conversation = self.conversation()
        if remember and conversation is not None:
            previous = conversation.model
            self.auto.switched = previous is not None and previous != self._target.name
            if previous != self._target.name:
                self.store.set_conversation_model(conversation.id, self._target.name)
        return self._target

    @property
    def connected(self) -> bool:
        """`connect` has resolved the model."""
        return self._target is not None

    @property
    def target(self) -> ModelTarget:
        if self._target is None:
            raise RuntimeError("Session.connect() has not run yet")
        return self._target

    @target.setter
    def target(self, target: ModelTarget) -> None:
        self._target = target
        self.model_name = target.name

    def prepare_model(self, progress: Progress | None = None, read_ahead: bool = False) -> ModelTarget:
        """Start what the model needs (the local server, assembled and started on first use).

        `read_ahead`: the face waits for the user to type (the TUI), so the local model reads the resumed
        conversation meanwhile; `foldchat ask` sends at once and gains nothing from it."""
        self.target = self.registry.prepare(self.target, progress)
        if read_ahead:
            self.read_ahead()
        return self.target

    def read_ahead(self) -> None:
        """Have the local model read the current context now, in the background (a no-op for hosted
        models): called whenever the start of the context changes (a fold, an undo, a resume, a switch, a
        new system prompt), so the next send only adds its message (docs/design.md §10)."""
        target = self._target
        if target is None or not target.backend.reads_ahead or target.api_base is None:
            return
        try:
            usage = self.context.usage(target)
            if usage.used >= usage.trigger:
                return  # a fold comes before the next send and changes the context again
            context = self.context.adapted_context(target)
        except FoldchatError:
            return
        if context:
            self.warmer.start(target, [m.to_dict() for m in context])

    def check_model(self, name: str) -> tuple[ModelTarget, Usage]:
        """The target for `name` and what the conversation would use there; nothing changes yet."""
        target = self.workspace.resolve_model(name)
        return target, self.context.usage(target)

    def switch_model(self, target: ModelTarget) -> None:
        """Talk to `target` from now on; the next fold check re-evaluates for its window."""
        self.warmer.set_aside()  # no send waits for a model it does not use; read_ahead starts the new one's
        self.target = target
        self.auto.switched = True
        if self.conversation_id is not None:  # a new one gets the model when it is stored
            self.store.set_conversation_model(self.conversation_id, target.name)
        self.read_ahead()

    def model_usages(self) -> list[tuple[ModelTarget, Usage]]:
        """What the model picker offers, each with this conversation's usage: the current model, the
        models used recently (remembered in the conversations), the config's aliases and the default,
        and one model of each provider whose API key is set (`models.OFFERED_MODELS`)."""
        recent = self.store.recent_models()
        names = [self.target.name, *recent, *self.registry.names(), self.registry.default_name(), *keyed_models()]
        found = []
        for name in dict.fromkeys(names):
            try:
                target = self.registry.resolve(name)
                found.append((target, self.context.usage(target)))
            except FoldchatError:  # an alias that no longer resolves is left out
                continue
        return found

    # -- counting ---------------------------------------------------------------------------------
    def counter(self) -> TokenCounter:
        return self.registry.counter(self.target)

    def usage(self, target: ModelTarget | None = None) -> Usage:
        """The context's usage, with what recall added to the latest request (the gauge shows both)."""
        target = target or self.target
        stored = self.context.transcript()  # read once, for the count and for what holds a fold back
        usage = self.replies.at_send.counted(self.context.usage(target, transcript=stored))
        return usage if usage.fits else replace(usage, held=self.chain.held(target, usage, stored))

    def typed_tokens(self, text: str) -> int:
        """What `text`, sent as the next user message, would add to the context (not cached: see
        `CachedCounter.count_uncached`)."""
        return self.context.typed_tokens(self.target, text)

    # -- the transcript ------------------------------------------------------------------------------
    def system_prompts(self) -> list[str]:
        return [m.message.text for m in self.context.transcript() if m.message.role == "system"]

    def add_user_message(self, text: str, attachments: Sequence[Attachment] = ()) -> int:
        """Stored (committed) before anything is sent, with what is attached; returns its id. A new
        conversation is stored with it, in one transaction."""
        message = user_message(text, attachments)
        message = self.context.fitted(message, self._target)  # a file bigger than the room is sent cut
        return self._first_or_next(message) or self.store.append(self.context.stored_id(), message)

    def set_system_prompt(self, text: str) -> int:
        stored = self._first_or_next(Message.system(text)) or self.replies.set_system_prompt(text)
        self.read_ahead()
        return stored

    def _first_or_next(self, message: Message) -> int | None:
        """The id of `message` stored as a new conversation's first (conversation and message together),
        or None when the conversation exists (the caller appends)."""
        if self.context.conversation_id is not None:
            return None
        model = self._target.name if self._target else None
        self.context.conversation_id, message_id = self.store.start_conversation(message, model)
        return message_id

    def turn(self, prompt: str | None = None, **options: Unpack[TurnOptions]) -> AsyncIterator[TurnEvent]:
        """One whole turn (`turn.py`): the prompt stored with its attachments, a fold if needed (asking
        `consent`), the reply streamed, the turn's end. What a face drives; `reply` is the streaming step."""
        return run_turn(self, prompt, **options)

    def reply(self, regenerate: bool = False) -> AsyncIterator[ReplyEvent]:
        """Stream the model's reply to the context, saved as it arrives, with its recall rounds (`Replies.reply`)."""
        return self._after_read_ahead(self.replies.reply(self.target, regenerate=regenerate))

    async def _after_read_ahead(self, events: AsyncIterator[ReplyEvent]) -> AsyncIterator[ReplyEvent]:
        # the server reads one request at a time: a reply to it goes after the read-ahead it builds on
        if self.warmer.reading_for(self.target):
            yield Waiting("the model is still reading the conversation ahead of this reply")
            await asyncio.to_thread(self.warmer.wait, WARM_TIMEOUT)
        async for event in events:
            if isinstance(event, Finished) and self.warmer.server_read:
                self.warmer.server_read.append(event.message.to_dict())  # the server holds its own reply too
            yield event

    def _read_estimate(self, messages: list[dict[str, Any]]) -> str | None:
        """`Replies.read_estimate`: what the local model reads first, when that takes a while."""
        if self._target is None or not self._target.backend.reads_ahead:
            return None
        return self.warmer.read_estimate(messages, self.counter(), self.settings.local.model, batch_threads())

    # -- folding by hand (automatic folds: `self.auto`, autofold.py) ------------------------------
    def _read_ahead_after(self, report: FoldReport | None) -> FoldReport | None:
        if report is not None and report.compressed:
            self.read_ahead()
        return report

    def fold_now(self, focus: str | None = None, on_event: EventSink = ignore_events) -> FoldReport | None:
        """/resummarize: fold whatever can be folded, with `focus` for the snapshot; on an already folded
        context, a re-fold from the original messages. It also re-arms paused automatic folds."""
        self.auto.failures = 0
        return self._read_ahead_after(self.chain.fold(self.target, force=True, focus=focus, on_event=on_event))

    def preview_fold(self, focus: str | None = None, on_event: EventSink = ignore_events) -> FoldPlan | None:
        """`/resummarize --preview`: what `fold_now(focus)` would do, computed and not applied."""
        return self.chain.plan_fold(self.target, force=True, focus=focus, on_event=on_event)

    def apply_fold(self, plan: FoldPlan) -> FoldReport | None:
        """Apply exactly a previewed fold (FoldFailed if the conversation changed since the preview)."""
        self.auto.failures = 0
        return self._read_ahead_after(self.chain.apply_fold(plan))

    def recall(self, query: str | None = None, message: int | None = None, offset: int = 0) -> str:
        """The verbatim originals behind the folds (what the `recall` tool answers), bounded in size."""
        return self.replies.recall(self._target, query, message, offset)

    def recall_at_send(self, on: bool) -> None:  # /recall on|off, for the session (`replies.at_send.on`)
        self._auto_recall = self.replies.at_send.on = on

    def drop_rule(self, fold_id: int, number: int) -> str:
        """Drop the fold's standing rule `number` (1-based, as `standing_rules` lists them); returns it.

        The snapshot is edited (as the inspector's edit would), so what is sent no longer carries it, and
        the conversation remembers the drop, so no later fold carries it either, not even a re-fold from
        the originals (/resummarize) that reads the user's own words again."""
        fold = self.store.fold(fold_id)
        rules = self.chain.standing_rules(fold)
        if not 1 <= number <= len(rules):
            raise UsageError(f"no rule {number}: this fold carries {len(rules)}")
        snapshot = self.chain.snapshot_of(fold)
        rule = rules[number - 1]
        kept = [c for c in snapshot.constraints_and_preferences if c != rule]
        edited = replace(snapshot, constraints_and_preferences=kept)
        self.edit_fold(fold_id, snap.render_message_text(edited))
        said = body(rule)  # the user's words; the message reference is where, not what
        self.store.drop_rule(fold.conversation_id, said)
        return said

    def undo_fold(self, fold_id: int) -> None:
        self.store.undo_fold(fold_id)
        self.read_ahead()

    def edit_fold(self, fold_id: int, text: str) -> None:
        self.store.edit_fold(fold_id, checked_edit(text, self.chain.snapshot_text(self.store.fold(fold_id))))
        self.read_ahead()

    # -- other conversations ----------------------------------------------------------------------
    def switch_conversation(self, conversation_id: int | None) -> None:
        """Open another conversation (a new one for None, stored with its first message); its own model,
        if it has one, follows. The conversation left behind is forgotten if it is still empty."""
        self.auto.prefold.discard()  # a plan for the conversation left behind is no use (and one being made)
        if conversation_id != self.conversation_id:
            self.discard_if_empty()
        if conversation_id is not None:
            conversation = self.store.conversation(conversation_id)
            if conversation.model and conversation.model != self.target.name:
                self.target = self.workspace.resolve_model(conversation.model)
        self.context, self.chain, self.replies = self._parts_for(conversation_id)
        self.read_ahead()

    def export(self, fmt: str) -> str:
        return self.workspace.export(self._existing_id(), fmt)

    def write_export(self, fmt: str) -> Path:
        """This conversation in a new private file in the exports folder; its path."""
        return self.workspace.write_export(self._existing_id(), fmt)

    def _existing_id(self) -> int:
        if self.conversation_id is None:
            raise UsageError("the conversation is empty: nothing to export yet")
        return self.conversation_id

    def discard_if_empty(self) -> None:
        """Forget the open conversation if it holds no message (stored by a start that failed, or by an
        older Foldchat that stored new conversations eagerly); it becomes a new, unstored one."""
        if self.conversation_id is not None and not self.context.transcript():
            self.workspace.delete(self.conversation_id)
            self.context, self.chain, self.replies = self._parts_for(None)
