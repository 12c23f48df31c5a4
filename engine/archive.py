"""The stored conversations, opened without settings or models: what `list`, `show` and `export` need.

An `Archive` reads the database; a `Workspace` (workspace.py) is one that also holds the settings and the
model registry. Opening an archive reads where the database is and nothing more when nothing more is
configured (`config_file.settings_free_database`): pydantic and the settings' models stay unloaded, which
is most of a listing's start-up. A config that sets anything else is loaded whole, so its mistakes are the
same one-line errors as for every command.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .closing import ClosedOnExit
from .config_file import SettingsNeeded, settings_free_database
from .options import OpenOptions
from .paths import default_database
from .store import Conversation, SearchHit, Store, StoredFold, StoredMessage
from .store.records import damaged_folds_notice, transcript_numbers

if TYPE_CHECKING:
    from .recalled import Recalled


def database_of(options: OpenOptions) -> Path:
    """Where the conversations are: the injected path, else the configured one, else the default."""
    if options.database is not None:
        return options.database
    if options.settings is not None:
        return options.settings.database or default_database()
    try:
        configured = settings_free_database(options.config)
    except SettingsNeeded:
        from .config import load_settings  # the whole settings, checked: a bad one fails as it does elsewhere

        configured = load_settings(options.config).database
    return configured or default_database()


class Archive(ClosedOnExit):
    """The conversations in one database: listed, searched, read, exported, renamed, deleted, imported."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._store: Store | None = None

    @classmethod
    def open(cls, options: OpenOptions | None = None) -> Archive:
        return cls(database_of(options or OpenOptions()))

    @property
    def store(self) -> Store:
        """The database, opened (and created) on first use: `foldchat models` never touches it."""
        if self._store is None:
            self._store = Store(self.database)
        return self._store

    def close(self) -> None:
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

    def message_numbers(self, transcript: Sequence[StoredMessage]) -> dict[int, int]:
        """Message id -> its 1-based number in the conversation whose `transcript` this is (ids are shared by
        all conversations). Given the transcript, not read again: `show` reads it once."""
        return transcript_numbers([m.id for m in transcript])

    def recalls(self, conversation_id: int) -> dict[int, Recalled]:
        """What automatic recall added to the request of each prompt (message id -> passages)."""
        from .recalled import stored_recalls  # what `show` needs of recall, not the index nor the choosing

        return stored_recalls(self.store, conversation_id)

    def fold_coverage(self, fold: StoredFold, transcript: Sequence[StoredMessage]) -> int:
        """How many messages `fold` stands for in its conversation's `transcript`: the count the app's toast,
        marker and inspector show."""
        from .fold.layout import covered_messages

        return covered_messages(fold, [m.id for m in transcript])

    def rename(self, conversation_id: int, title: str) -> None:
        self.store.rename_conversation(conversation_id, title)

    def delete(self, conversation_id: int) -> None:
        self.store.delete_conversation(conversation_id)

    def export(self, conversation_id: int, fmt: str) -> str:
        """The conversation as Markdown (`md`) or JSON (`json`)."""
        from .export import export_conversation  # with the snapshot's sections: only `export` needs them

        return export_conversation(self.store, conversation_id, fmt)

    def write_export(self, conversation_id: int, fmt: str, directory: Path | None = None) -> Path:
        """The conversation written to a new private file (default: the exports folder); its path."""
        from .export import write_export

        return write_export(self.store, conversation_id, fmt, directory)

    def import_data(self, data: Any, model: str | None = None) -> list[int]:
        """Conversations from a JSON message list or a ChatGPT export; returns their ids."""
        from .importer import import_conversations  # only `import` reads an export

        return import_conversations(self.store, data, model)
