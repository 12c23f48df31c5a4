"""The application API: one open conversation and the model it talks to.

`Session` is what the TUI and `foldchat ask` drive; neither touches the store, the registry or the
fold pipeline directly. It owns choosing the conversation, the current model and its switch, token
estimates for the gauge, sending and streaming, folding (automatic, forced with a focus, undo, edit),
pins, the fold chain and the conversation list. Fold progress leaves as `events.FoldEvent` values.

Opening is cheap (config + database); `connect()` loads litellm and resolves the model, so a UI can
show the transcript first. Every method is blocking and thread-safe enough to run in a worker thread;
`reply` is an async iterator.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType

from . import snapshot as snap
from .chat import ChatSession, Usage
from .config import Settings
from .errors import FoldchatError
from .events import EventSink, ignore_events
from .fold_layout import covered_messages, transcript_numbers
from .lazy import load_litellm
from .local_model import Progress
from .messages import Message
from .models import ModelRegistry
from .options import OpenOptions
from .policy import Trigger
from .providers import ModelTarget, ProviderEvent
from .report import FoldReport
from .snapshot import Snapshot, snapshot_text
from .store import Conversation, Store, StoredFold, StoredMessage
from .tokens import TokenCounter
from .workspace import Workspace

AUTO_FOLD_ATTEMPTS = 2
AUTO_FOLD_PAUSED = "automatic folding paused after 2 failed attempts in a row: /resummarize retries"


class Session:
    def __init__(self, workspace: Workspace, conversation_id: int, model_name: str) -> None:
        self.workspace = workspace
        self.chat = ChatSession(workspace.store, workspace.registry, workspace.settings, conversation_id)
        self.model_name = model_name
        self._target: ModelTarget | None = None
        self.switched = False
        """The model changed since the last automatic fold check: the next one re-evaluates at once."""
        self.failed_auto_folds = 0
        """Automatic folds that failed in a row; at `AUTO_FOLD_ATTEMPTS` they stop until the user acts."""

    @classmethod
    def open(cls, options: OpenOptions | None = None) -> Session:
        """Settings, database and conversation: enough to show the transcript (no litellm yet)."""
        options = options or OpenOptions()
        workspace = Workspace.open(options)
        conversation = workspace.choose_conversation(options.conversation, options.new)
        name = options.model or conversation.model or workspace.default_model_name()
        return cls(workspace, conversation.id, name)

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.workspace.close()

    # -- what the session is made of --------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.workspace.settings

    @property
    def store(self) -> Store:
        """The database (for tests and tools; the faces go through the methods below)."""
        return self.workspace.store

    @property
    def registry(self) -> ModelRegistry:
        return self.workspace.registry

    @property
    def conversation_id(self) -> int:
        return self.chat.conversation_id

    def conversation(self) -> Conversation:
        return self.store.conversation(self.conversation_id)

    # -- the model --------------------------------------------------------------------------------
    def connect(self, remember: bool = False) -> ModelTarget:
        """Slow (imports litellm): resolve the model so tokens can be counted and replies sent.

        With `remember`, the model becomes the conversation's, and a change from the model it had
        makes the next fold check a switch (DESIGN §5); `foldchat ask` does this on every call.
        """
        self.registry.launch_early(self.model_name)  # the local model loads while litellm imports
        load_litellm()
        self._target = self.workspace.resolve_model(self.model_name)
        if remember:
            previous = self.conversation().model
            self.switched = previous is not None and previous != self._target.name
            if previous != self._target.name:
                self.store.set_conversation_model(self.conversation_id, self._target.name)
        return self._target

    @property
    def target(self) -> ModelTarget:
        if self._target is None:
            raise RuntimeError("Session.connect() has not run yet")
        return self._target

    @target.setter
    def target(self, target: ModelTarget) -> None:
        self._target = target
        self.model_name = target.name

    def prepare_model(self, progress: Progress | None = None) -> ModelTarget:
        """Start what the model needs (the local server, assembled and started on first use)."""
        self.target = self.registry.prepare(self.target, progress)
        return self.target

    def check_model(self, name: str) -> tuple[ModelTarget, Usage]:
        """The target for `name` and what the conversation would use there; nothing changes yet."""
        target = self.workspace.resolve_model(name)
        return target, self.chat.usage(target)

    def switch_model(self, target: ModelTarget) -> None:
        """Talk to `target` from now on; the next fold check re-evaluates for its window."""
        self.target = target
        self.switched = True
        self.store.set_conversation_model(self.conversation_id, target.name)

    def model_usages(self) -> list[tuple[ModelTarget, Usage]]:
        """The current model, the config's aliases and the default, each with this conversation's usage."""
        names = list(dict.fromkeys([self.target.name, *self.registry.names(), self.registry.default_name()]))
        found = []
        for name in names:
            try:
                target = self.registry.resolve(name)
                found.append((target, self.chat.usage(target)))
            except FoldchatError:  # an alias that no longer resolves is left out
                continue
        return found

    # -- counting ---------------------------------------------------------------------------------
    def counter(self) -> TokenCounter:
        return self.registry.counter(self.target)

    def usage(self, target: ModelTarget | None = None) -> Usage:
        return self.chat.usage(target or self.target)

    def typed_tokens(self, text: str) -> int:
        """What `text`, sent as the next user message, would add to the context."""
        if not text.strip():
            return 0
        return self.counter().count_message(Message.user(text))

    def count_text(self, text: str) -> int:
        return self.counter().count_text(text)

    def total_cost(self) -> float:
        return self.chat.total_cost()

    # -- the transcript and the context -----------------------------------------------------------
    def transcript(self) -> list[StoredMessage]:
        return self.chat.transcript()

    def context(self) -> list[Message]:
        return self.chat.context()

    def system_prompts(self) -> list[str]:
        return [m.message.text for m in self.transcript() if m.message.role == "system"]

    def add_user_message(self, text: str) -> int:
        """Stored (committed) before anything is sent; returns its id."""
        return self.chat.add_user_message(text)

    def set_system_prompt(self, text: str) -> int:
        return self.chat.set_system_prompt(text)

    def mark_unsent(self, message_id: int, reason: str) -> None:
        """A message refused before sending: kept in the transcript, left out of every context."""
        self.store.mark_unsent(message_id, reason)

    def reply(self, regenerate: bool = False) -> AsyncIterator[ProviderEvent]:
        """Stream the model's reply to the context, saving it as it arrives (see `ChatSession.reply`)."""
        return self.chat.reply(self.target, regenerate=regenerate)

    # -- folding ----------------------------------------------------------------------------------
    @property
    def auto_fold_paused(self) -> bool:
        """DESIGN §5: after two failed automatic folds in a row, no retry on every send until /resummarize."""
        return self.failed_auto_folds >= AUTO_FOLD_ATTEMPTS

    def fold_if_needed(self, on_event: EventSink = ignore_events) -> FoldReport | None:
        """The policy's check before a send; a model switch since the last check re-evaluates at once."""
        if self.auto_fold_paused:
            return self._paused_report()
        trigger = Trigger.SWITCH if self.switched else None
        self.switched = False
        try:
            report = self.chat.fold(self.target, trigger=trigger, on_event=on_event)
        except FoldchatError:
            self.failed_auto_folds += 1
            raise
        if report is not None and report.failed:
            self.failed_auto_folds += 1
        elif report is not None and report.compressed:
            self.failed_auto_folds = 0
        return report

    def _paused_report(self) -> FoldReport:
        usage = self.usage()
        return FoldReport(
            compressed=False, reason=AUTO_FOLD_PAUSED, tokens_before=usage.tokens, tokens_after=usage.tokens,
            window=usage.window, reserved_output=usage.reserved, trigger_tokens=usage.trigger,
            target_tokens=usage.target,
        )  # fmt: skip

    def fold_now(self, focus: str | None = None, on_event: EventSink = ignore_events) -> FoldReport | None:
        """/resummarize: fold whatever can be folded, with `focus` for the snapshot; on an already folded
        context, a re-fold from the original messages. It also re-arms paused automatic folds."""
        self.failed_auto_folds = 0
        return self.chat.fold(self.target, force=True, focus=focus, on_event=on_event)

    def fold_coverage(self, fold: StoredFold) -> int:
        """How many transcript messages `fold` stands for: the count the toast, marker and inspector show."""
        return covered_messages(fold, [m.id for m in self.transcript()])

    def message_numbers(self) -> dict[int, int]:
        """Message id -> its 1-based number in this conversation's transcript."""
        return transcript_numbers([m.id for m in self.transcript()])

    def folds(self, include_undone: bool = False) -> list[StoredFold]:
        """The fold chain, oldest first."""
        return self.store.folds(self.conversation_id, include_undone)

    def active_fold(self) -> StoredFold | None:
        return self.store.active_fold(self.conversation_id)

    def fold_record(self, fold_id: int) -> StoredFold:
        return self.store.fold(fold_id)

    def snapshot_text(self, fold: StoredFold) -> str:
        """What the model sees for `fold`: the user's edit if there is one."""
        return snapshot_text(fold)

    def snapshot_of(self, fold: StoredFold) -> Snapshot:
        """The fold's snapshot as the model sees it: the user's edit read back, if there is one."""
        parsed = snap.parse(fold.edited_text) if fold.edited_text else snap.stored_snapshot(fold.snapshot)
        return parsed or Snapshot()

    def undo_fold(self, fold_id: int) -> None:
        self.store.undo_fold(fold_id)

    def edit_fold(self, fold_id: int, text: str) -> None:
        self.store.edit_fold(fold_id, text)

    # -- pins -------------------------------------------------------------------------------------
    def pin(self, message_id: int, pinned: bool = True) -> None:
        self.store.pin(message_id, pinned)

    def pinned_ids(self) -> list[int]:
        return self.store.pinned_ids(self.conversation_id)

    # -- other conversations ----------------------------------------------------------------------
    def switch_conversation(self, conversation_id: int | None) -> None:
        """Open another conversation (a new one for None); its own model, if it has one, follows."""
        if conversation_id is None:
            conversation_id = self.store.create_conversation(model=self.target.name)
        conversation = self.store.conversation(conversation_id)
        if conversation.model and conversation.model != self.target.name:
            self.target = self.workspace.resolve_model(conversation.model)
        self.chat = ChatSession(self.store, self.registry, self.settings, conversation_id)

    def conversations(self, search: str | None = None) -> list[Conversation]:
        return self.workspace.conversations(search)

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        self.workspace.rename(conversation_id, title)

    def delete_conversation(self, conversation_id: int) -> None:
        self.workspace.delete(conversation_id)

    def export(self, fmt: str) -> str:
        return self.workspace.export(self.conversation_id, fmt)

    def write_export(self, fmt: str) -> Path:
        """This conversation in a new private file in the exports folder; its path."""
        return self.workspace.write_export(self.conversation_id, fmt)

    def discard_if_empty(self) -> None:
        """Forget the open conversation if it holds no message (a start that failed before any)."""
        if not self.transcript():
            self.workspace.delete(self.conversation_id)
