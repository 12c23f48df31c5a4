"""Everything the conversations share: settings, the database and the model registry.

A `Workspace` is the `Archive` of stored conversations (archive.py) with the settings and the models:
what `import`, `models` and `ask` open; a `Session` (session.py) opens one conversation inside it.
Opening a workspace reads the config and the database, nothing slower: litellm stays unloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .archive import Archive, database_of
from .config import Settings, load_settings
from .errors import UsageError
from .options import OpenOptions
from .providers.registry import ModelRegistry, check_model_name
from .providers.target import ModelTarget
from .remembered import Remembered
from .store import Conversation


@dataclass(frozen=True)
class ModelEntry:
    """A model Foldchat knows by name, or why it cannot be used."""

    name: str
    target: ModelTarget | None
    problem: str = ""
    is_default: bool = False


class Workspace(Archive):
    def __init__(self, settings: Settings, registry: ModelRegistry, database: Path) -> None:
        super().__init__(database)
        self.settings = settings
        self.registry = registry

    @classmethod
    def open(cls, options: OpenOptions | None = None) -> Workspace:
        options = options or OpenOptions()
        settings = options.settings or load_settings(options.config)
        return cls(settings, ModelRegistry(settings), database_of(options._replace(settings=settings)))

    @cached_property
    def remembered(self) -> Remembered:
        """The theme and drafts the app keeps between runs (beside the database)."""
        return Remembered(self.database)

    def close(self) -> None:
        self.registry.close()
        super().close()

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
