"""The context of a conversation (docs/design.md §1): what the next call sends, rebuilt from the transcript
and the active fold every time it is needed (system prompts + snapshot + acknowledgement + the messages
after the fold), as each provider takes it, and what it uses of the model's window."""

from __future__ import annotations

from collections.abc import Sequence

from . import snapshot as snap
from .alternation import current_turn_start, repair
from .attachment_fit import as_sent, fitted
from .attachments import said, with_text
from .config import Settings
from .errors import UsageError
from .fold.condense import condense_oversized
from .fold.layout import FoldLayout, NewFold
from .headroom import Usage as Usage, turn_size  # Usage read from here too (fold/chain.py, turn.py)
from .messages import Message
from .providers.adapt import TargetRules, adapt, rules_for_target, with_own_prompt
from .providers.backend import Backend
from .providers.registry import ModelRegistry
from .providers.target import ModelTarget
from .recall import supports_recall
from .recall_wording import without_recall
from .snapshot import snapshot_text
from .store import Store, StoredFold, StoredMessage
from .store.records import title_of, transcript_numbers


class Context:
    """One conversation's transcript and the context built from it. Shared by its fold chain and its
    replies (`Session` holds the three), so the conversation's id, stored on its first write, is one."""

    def __init__(self, store: Store, registry: ModelRegistry, settings: Settings, conversation_id: int | None) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings
        self.conversation_id = conversation_id
        """None for a new conversation not stored yet: it reads as empty until a write creates it."""
        self._rules_cache: dict[str, TargetRules] = {}
        self._origin_cache: dict[str, str | None] = {}
        self._recall_cache: dict[tuple[str, Backend], bool] = {}

    def transcript(self) -> list[StoredMessage]:
        return [] if self.conversation_id is None else self.store.messages(self.conversation_id)

    def active_fold(self) -> StoredFold | None:
        return None if self.conversation_id is None else self.store.active_fold(self.conversation_id)

    def stored_id(self) -> int:
        """The conversation's id, storing it first if it is new (the first write does)."""
        if self.conversation_id is None:
            self.conversation_id = self.store.create_conversation()
        return self.conversation_id

    def messages(
        self,
        transcript: Sequence[StoredMessage] | None = None,
        exclude: frozenset[int] = frozenset(),
        target: ModelTarget | None = None,
    ) -> list[Message]:
        """What the next call sends: system prompts + snapshot + acknowledgement + messages after the fold.

        With `target`, oversized messages kept after a fold are condensed again exactly as the fold did,
        so the rebuilt context is the one the fold reported.
        """
        stored = list(transcript) if transcript is not None else self.transcript()
        return self.with_fold(sent(stored, exclude), self.active_fold(), target)

    def with_fold(
        self, messages: list[Message], fold: StoredFold | NewFold | None, target: ModelTarget | None
    ) -> list[Message]:
        """`messages` (the sendable transcript) as `fold` sends them."""
        if fold is None:
            return repair(messages).messages
        layout = FoldLayout.of(fold)
        messages = [layout.apply(m) for m in messages]
        if not layout.has_snapshot:  # a fold that only pruned tool outputs
            return repair(messages).messages
        systems = [m for m in messages if m.role == "system"]
        after = [m for m in messages if m.role != "system" and layout.sends(fold, m)]
        if target is not None:
            after = self._condense_kept(after, target)
        bridge = [Message.assistant(snap.ACKNOWLEDGEMENT)] if not after or after[0].role == "user" else []
        # marked as ours (docs/design.md §3.6); no `name` here: that mark is only for plain JSON
        snapshot = Message(role="user", content=snapshot_text(fold), is_snapshot=True)
        return repair([*systems, snapshot, *bridge, *after]).messages

    def originals(self, transcript: Sequence[StoredMessage]) -> list[Message]:
        """The context as if nothing had been folded: what a user-forced re-fold starts from."""
        return repair([s.message for s in transcript if sendable(s)]).messages

    def _condense_kept(self, kept: list[Message], target: ModelTarget) -> list[Message]:
        threshold = self.settings.fold.message_threshold(target.window)
        return condense_oversized(kept, current_turn_start(kept), self.registry.counter(target), threshold).messages

    def adapted_context(self, target: ModelTarget, exclude: frozenset[int] = frozenset()) -> list[Message]:
        """The context as `target` accepts it (ids, reasoning, images; docs/design.md §8)."""
        transcript = self.transcript()
        return self.adapted(target, self.messages(transcript, exclude, target), transcript)

    def adapted(
        self, target: ModelTarget, context: list[Message], transcript: Sequence[StoredMessage]
    ) -> list[Message]:
        """`context` (built from `transcript`) as `target` accepts it."""
        producers = {s.id: s.model for s in transcript}
        origins = [self._provider_of(producers.get(m.key) if m.key is not None else None) for m in context]
        if not self.offers_recall(target):  # told only what it can use: no tool it is not offered
            context = without_recall(context)
        adapted, _ = adapt(context, self.rules(target), origins)
        return adapted

    def offers_recall(self, target: ModelTarget) -> bool:
        """Whether requests to `target` offer the `recall` tool once something is folded (replies.py)."""
        kind = (target.litellm_model, target.backend)
        if kind not in self._recall_cache:
            self._recall_cache[kind] = supports_recall(target)
        return self.settings.fold.recall and self._recall_cache[kind]

    def rules(self, target: ModelTarget) -> TargetRules:
        rules = self._rules_cache.get(target.litellm_model)
        if rules is None:
            rules = self._rules_cache[target.litellm_model] = rules_for_target(target)
        return rules

    def _provider_of(self, model_name: str | None) -> str | None:
        """The provider that wrote a stored reply (`model` is the name it was sent with)."""
        if model_name is None:
            return None
        if model_name not in self._origin_cache:
            try:
                target = self.registry.resolve(model_name)
                self._origin_cache[model_name] = self.rules(target).provider
            except Exception:  # a model no longer configured: its reasoning is not sent anywhere
                self._origin_cache[model_name] = None
        return self._origin_cache[model_name]

    def usage(
        self, target: ModelTarget, extra_text: str = "", transcript: Sequence[StoredMessage] | None = None
    ) -> Usage:
        """What the context takes of `target`'s window, and the typical turn of the stored transcript (not of
        the context: a fold changes what is sent, not what a turn takes; `headroom.py`)."""
        counter = self.registry.counter(target)
        stored = list(transcript) if transcript is not None else self.transcript()
        messages = sent(stored)
        # as sent: with the system prompt the embedded model gets of Foldchat's (24-46 tokens)
        tokens = counter.count(with_own_prompt(self.with_fold(messages, self.active_fold(), target), target))
        if extra_text:
            tokens += counter.count_message(Message.user(extra_text))
        policy = self.settings.fold
        return Usage(
            tokens, target.window, self.registry.reserved_output(target), policy.trigger_at(target.window),
            policy.target_at(target.window), turn_size(messages, counter.count_message),
        )  # fmt: skip

    def typed_tokens(self, target: ModelTarget, text: str) -> int:
        """What `text`, sent to `target` as the next user message, would add to the context (not cached:
        see `CachedCounter.count_uncached`)."""
        return self.registry.counter(target).count_uncached(Message.user(text)) if text.strip() else 0

    def too_big_to_send(self, target: ModelTarget, text: str) -> str | None:
        """Why `text` cannot be sent to `target` whatever is folded (with the system prompts and the
        reply's reserve it is over the window), with the arithmetic; None when it can. Most messages are
        not counted: a token is at least a byte, so one of fewer bytes than the room left surely fits."""
        systems = self._system_tokens(target)
        reserve = self.registry.reserved_output(target)
        if len(text.encode()) + 16 + systems + reserve <= target.window:
            return None
        message = self.typed_tokens(target, text)
        needed = message + systems + reserve
        if needed <= target.window:
            return None
        return (
            f"the message is {message:,} tokens; with the system prompt ({systems:,}) and the reply's reserve "
            f"({reserve:,}) it needs {needed:,}, over {target.name}'s {target.window:,}-token window"
        )

    def fitted(self, message: Message, target: ModelTarget | None) -> Message:
        """A new message with what it attaches marked to be sent cut when it takes more than the fold target
        leaves after the system prompts and the reply's reserve (attachment_fit.py); kept whole."""
        if target is None or not isinstance(message.content, tuple):
            return message
        room = self.settings.fold.target_at(target.window) - self.registry.reserved_output(target)
        return fitted(message, room - self._system_tokens(target), self.registry.counter(target).count_text)

    def _system_tokens(self, target: ModelTarget) -> int:
        """What the conversation's system prompts take of `target`'s window (the backend's own too)."""
        stored = [s.message for s in self.transcript() if sendable(s)]
        systems = [m for m in stored if m.role == "system"]
        return self.registry.counter(target).count(with_own_prompt(systems, target, said=stored))

    def message_numbers(self) -> dict[int, int]:
        """Message id -> its 1-based number in this conversation's transcript."""
        return transcript_numbers([m.id for m in self.transcript()])

    def pin(self, message_id: int, pinned: bool = True) -> None:
        """A pinned message is quoted verbatim in every snapshot."""
        self.store.pin(message_id, pinned)

    def pinned_ids(self) -> list[int]:
        return [] if self.conversation_id is None else self.store.pinned_ids(self.conversation_id)

    def pinned_texts(self) -> list[str]:
        return [self.store.message(i).message.text for i in self.pinned_ids()]

    def edit_and_resend(self, message_id: int, text: str) -> tuple[int, list[int]]:
        """Replace an earlier user prompt with `text`: returns the new message's id and the folds undone.

        The edited prompt and everything after it are superseded by the new message, never deleted (the
        transcript is append-only); the next reply answers the new prompt. A fold that covers the edited
        message (or anything after it) would summarise what no longer holds, so it is undone, with every
        fold built on it; folds wholly before the edited message stay. The caller says which were undone.
        What the prompt attached goes with the edited words, and a title the old words gave the conversation
        follows them (a title the user chose stays)."""
        stored = self.store.message(message_id)
        if stored.conversation_id != self.conversation_id or stored.message.role != "user":
            raise UsageError(f"message {message_id} is not a prompt of this conversation")
        if stored.superseded_by is not None:
            raise UsageError(f"message {message_id} was already replaced: edit the newer one")
        if not text.strip():
            raise UsageError("the edited prompt is empty")
        undone = [f.id for f in self.store.folds(stored.conversation_id) if f.last_message_id >= message_id]
        if undone:
            self.store.undo_fold(undone[0])  # and every fold built on top of it
        edited = with_text(stored.message, text)
        new_id = self.store.resend(stored.conversation_id, message_id, edited)
        # the title follows when the old words gave it and the edit replaced the first prompt (a later prompt
        # with the same words did not give it)
        gave_title = self.store.conversation(stored.conversation_id).title == title_of(said(stored.message))
        if gave_title and [m.id for m in self._live_prompts()[:1]] == [new_id]:
            self.store.rename_conversation(stored.conversation_id, title_of(said(edited)))
        return new_id, undone

    def _live_prompts(self) -> list[StoredMessage]:
        """The prompts that still count (not replaced by an edit), in order."""
        return [m for m in self.transcript() if m.message.role == "user" and m.superseded_by is None]

    def last_prompt(self, before: int | None = None) -> StoredMessage | None:
        """The newest prompt that still counts (not replaced): what ↑ in an empty composer edits; with
        `before` (a message id), the newest one older than it: ↑ again walks back through the prompts."""
        live = self._live_prompts()
        if before is not None:
            live = [m for m in live if m.id < before]
        return live[-1] if live else None


def sent(stored: Sequence[StoredMessage], exclude: frozenset[int] = frozenset()) -> list[Message]:
    """The sendable messages of `stored` (not those in `exclude`), as a request carries them."""
    return [as_sent(s.message) for s in stored if sendable(s) and s.id not in exclude]


def sendable(stored: StoredMessage) -> bool:
    """Failed or interrupted replies are sent back only if they hold text the user saw.

    An empty assistant reply is never sent back, whatever its status: it says nothing, and older
    databases stored empty streams as `complete`.
    """
    if stored.superseded_by is not None:
        return False
    message = stored.message
    says_something = bool(message.text.strip() or message.tool_calls)
    if message.role == "assistant" and not says_something:
        return False
    if stored.status == "complete":
        return True
    return says_something and stored.status not in ("streaming", "unsent")
