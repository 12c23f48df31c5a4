"""The engine side of the app, opened off the UI thread: settings, store, models, the session.

Nothing here touches widgets; the chat screen calls it from workers and renders what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foldchat.engine.chat import ChatSession, Usage
    from foldchat.engine.config import Settings
    from foldchat.engine.models import ModelRegistry
    from foldchat.engine.providers import ModelTarget
    from foldchat.engine.store import Store, StoredFold, StoredMessage


@dataclass
class AppOptions:
    """How the app was started (CLI flags), plus injection points for tests."""

    config: str | None = None
    conversation: int | None = None
    new: bool = False
    model: str | None = None
    settings: Settings | None = None
    database: Path | None = None


@dataclass
class Backend:
    settings: Settings
    store: Store
    registry: ModelRegistry
    session: ChatSession
    target: ModelTarget
    model_name: str = ""
    switched: bool = False

    @classmethod
    def open(cls, options: AppOptions) -> Backend:
        """Settings, database and conversation: enough to show the transcript (no litellm yet)."""
        from foldchat.engine.chat import ChatSession
        from foldchat.engine.config import load_settings
        from foldchat.engine.models import ModelRegistry
        from foldchat.engine.paths import default_database
        from foldchat.engine.store import Store

        settings = options.settings or load_settings(options.config)
        store = Store(options.database or settings.database or default_database())
        registry = ModelRegistry(settings)
        conversation = None
        if options.conversation is not None:
            conversation = store.conversation(options.conversation)
        elif not options.new:
            conversation = store.latest_conversation()
        if conversation is None:
            conversation = store.conversation(store.create_conversation())
        session = ChatSession(store, registry, settings, conversation.id)
        name = options.model or conversation.model or registry.default_name()
        return cls(settings, store, registry, session, None, model_name=name)  # type: ignore[arg-type]

    def connect(self) -> None:
        """Slow (imports litellm): resolve the model so tokens can be counted and replies sent."""
        from foldchat.engine.lazy import load_litellm
        from foldchat.engine.models import check_model_name

        load_litellm()
        self.target = check_model_name(self.model_name, self.registry)

    @property
    def conversation_id(self) -> int:
        return self.session.conversation_id

    def transcript(self) -> list[StoredMessage]:
        return self.session.transcript()

    def folds(self, include_undone: bool = False) -> list[StoredFold]:
        return self.store.folds(self.conversation_id, include_undone)

    def snapshot_text(self, fold: StoredFold) -> str:
        from foldchat.engine.chat import snapshot_text

        return snapshot_text(fold)

    def usage(self, target: ModelTarget | None = None) -> Usage:
        return self.session.usage(target or self.target)

    def typed_tokens(self, text: str) -> int:
        from foldchat.engine.messages import Message

        if not text.strip():
            return 0
        return self.registry.counter(self.target).count_message(Message.user(text))

    def switch_conversation(self, conversation_id: int | None) -> None:
        from foldchat.engine.chat import ChatSession

        if conversation_id is None:
            conversation_id = self.store.create_conversation(model=self.target.name)
        conversation = self.store.conversation(conversation_id)
        if conversation.model and conversation.model != self.target.name:
            from foldchat.engine.models import check_model_name

            self.target = check_model_name(conversation.model, self.registry)
        self.session = ChatSession(self.store, self.registry, self.settings, conversation_id)

    def close(self) -> None:
        self.registry.close()
        self.store.close()
