"""Everything the conversations share: settings, the database and the model registry.

A `Workspace` is what the shell commands that read or manage conversations (`list`, `show`,
`export`, `import`, `models`) open; a `Session` (session.py) opens one conversation inside it. Opening
a workspace reads the config and the database, nothing slower: litellm stays unloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any

from .config import Settings, load_settings
from .errors import UsageError
from .export import export_conversation, write_export
from .fold.layout import covered_messages, transcript_numbers
from .importer import import_conversations
from .options import OpenOptions
from .paths import default_database
from .providers.registry import ModelRegistry, check_model_name
from .providers.target import ModelTarget
from .recall_at_send import stored_recalls
from .recall_passages import Recalled
from .remembered import Remembered
from .store import Conversation, SearchHit, Store, StoredFold, StoredMessage
from .store.records import damaged_folds_notice


@dataclass(frozen=True)
class ModelEntry:
    """A model Foldchat knows by name, or why it cannot be used."""

    name: str
    target: ModelTarget | None
    problem: str = ""
    is_default: bool = False


class Workspace:
    def __init__(self, settings: Settings, registry: ModelRegistry, database: Path) -> None:
        self.settings = settings
        self.registry = registry
        self.database = database
        self._store: Store | None = None

    @classmethod
    def open(cls, options: OpenOptions | None = None) -> Workspace:
        options = options or OpenOptions()
        settings = options.settings or load_settings(options.config)
        return cls(settings, ModelRegistry(settings), options.database or settings.database or default_database())

    @cached_property
    def remembered(self) -> Remembered:
        """The theme and drafts the app keeps between runs (beside the database)."""
        return Remembered(self.database)

    @property
    def store(self) -> Store:
        """The database, opened (and created) on first use: `foldchat models` never touches it."""
        if self._store is None:
            self._store = Store(self.database)
        return self._store

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.registry.close()
        if self._store is not None:
            self._store.close()

    # -- conversations ----------------------------------------------------------------------------
    def choose_conversation(self, conversation_id: int | None = None, new: bool = False) -> Conversation | None:
        """The conversation to open: `conversation_id`, else None (a new one) with `new`, else the latest
        (None when there is none). The one place both faces decide it. A new conversation is not stored
        here: its first message stores it (`Session`), so nothing empty is left in the list."""
        if conversation_id is not None:
            return self.store.conversation(conversation_id)
        return None if new else self.store.latest_conversation()

    def conversations(self, search: str | None = None) -> list[Conversation]:
        """Most recent first; with `search`, only those whose title or messages contain it."""
        return self.store.conversations(search=search)

    def search(self, text: str) -> list[SearchHit]:
        """Conversations whose title or messages hold `text` (full-text), each with the matching line."""
        return self.store.search(text)

    def recent_models(self) -> list[str]:
        """The models of the most recently used conversations, newest first."""
        return self.store.recent_models()

    def conversation(self, conversation_id: int) -> Conversation:
        return self.store.conversation(conversation_id)

    def transcript(self, conversation_id: int) -> list[StoredMessage]:
        return self.store.messages(conversation_id)

    def folds(self, conversation_id: int, include_undone: bool = False) -> list[StoredFold]:
        return self.store.folds(conversation_id, include_undone)

    def damaged_folds_notice(self, conversation_id: int | None) -> str | None:
        """One line naming the conversation's folds that cannot be read (and so count as undone), for a face
        to say once when it opens the conversation; None when there are none."""
        return None if conversation_id is None else damaged_folds_notice(self.store.folds(conversation_id, True))

    def message_numbers(self, conversation_id: int) -> dict[int, int]:
        """Message id -> its 1-based number in the conversation (ids are shared by all conversations)."""
        return transcript_numbers([m.id for m in self.transcript(conversation_id)])

    def recalls(self, conversation_id: int) -> dict[int, Recalled]:
        """What automatic recall added to the request of each prompt (message id -> passages)."""
        return stored_recalls(self.store, conversation_id)

    def fold_coverage(self, fold: StoredFold) -> int:
        """How many messages `fold` stands for: the count the app's toast, marker and inspector show."""
        return covered_messages(fold, [m.id for m in self.transcript(fold.conversation_id)])

    def rename(self, conversation_id: int, title: str) -> None:
        self.store.rename_conversation(conversation_id, title)

    def delete(self, conversation_id: int) -> None:
        self.store.delete_conversation(conversation_id)

    def export(self, conversation_id: int, fmt: str) -> str:
        """The conversation as Markdown (`md`) or JSON (`json`)."""
        return export_conversation(self.store, conversation_id, fmt)

    def write_export(self, conversation_id: int, fmt: str, directory: Path | None = None) -> Path:
        """The conversation written to a new private file (default: the exports folder); its path."""
        return write_export(self.store, conversation_id, fmt, directory)

    def import_data(self, data: Any, model: str | None = None) -> list[int]:
        """Conversations from a JSON message list or a ChatGPT export; returns their ids."""
        return import_conversations(self.store, data, model)

    # -- models -----------------------------------------------------------------------------------
    def default_model_name(self) -> str:
        return self.registry.default_name()

    def choose_model(self, conversation: Conversation | None, model: str | None = None) -> str:
        """The model a session on `conversation` talks to: `model` when named, else the one the
        conversation last used, else the default. The one place both faces decide it."""
        return model or (conversation.model if conversation is not None else None) or self.default_model_name()

    def start_model_early(self, options: OpenOptions) -> None:
        """Launch the embedded model's server now if `options` lead to it, without waiting.

        `foldchat ask` calls this before it imports the session machinery, so the model loads
        meanwhile; the session's `connect` and `prepare_model` then find it started. Closing the
        workspace stops it, whatever happens in between.
        """
        conversation = self.choose_conversation(options.conversation, options.new)
        self.registry.launch_early(self.choose_model(conversation, options.model))

    def resolve_model(self, name: str) -> ModelTarget:
        """The target for an alias, litellm model string or 'local'; `UsageError` when unknown."""
        return check_model_name(name, self.registry)

    def known_models(self) -> list[ModelEntry]:
        """The local model, the config's aliases and the default, each resolved (or why it cannot be)."""
        default = self.registry.default_name()
        names = list(dict.fromkeys([*self.registry.names(), default]))
        entries = []
        for name in names:
            try:
                entries.append(ModelEntry(name, self.registry.resolve(name), is_default=name == default))
            except UsageError as error:
                entries.append(ModelEntry(name, None, str(error), name == default))
        return entries
