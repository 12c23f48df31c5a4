"""What the app remembers between runs besides conversations: the theme last chosen and unsent drafts.

A small JSON file beside the database (private, written whole and renamed into place, so a crash never
leaves half of it). Everything in it is a convenience: a missing or unreadable file is an empty one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import untrusted_json
from .errors import FoldchatError
from .paths import create_private_file
from .regular_file import read_regular

MAX_DRAFT_CHARS = 1_000_000  # a draft is what was being typed, not a dump: beyond this it is not kept
MAX_STATE_BYTES = 16 * 1024 * 1024  # a few drafts at their cap; anything bigger is not a file we wrote


class Remembered:
    def __init__(self, database: Path | str) -> None:
        self.path = Path(database).with_name("ui-state.json")
        self.problem: str | None = None  # why the file was ignored, said once by the app
        loaded = None
        try:
            loaded = untrusted_json.loads(read_regular(self.path, MAX_STATE_BYTES).decode("utf-8"))
        except FileNotFoundError:
            pass
        except FoldchatError as error:  # a pipe or /dev/zero must not hang start-up
            self.problem = f"{error}; the saved theme and drafts were ignored"
        except (OSError, UnicodeDecodeError):
            pass  # unreadable or damaged: a convenience, started afresh
        self.state: dict[str, object] = loaded if isinstance(loaded, dict) else {}

    @property
    def theme(self) -> str | None:
        theme = self.state.get("theme")
        return theme if isinstance(theme, str) else None

    def set_theme(self, theme: str) -> None:
        if theme != self.theme:
            self.state["theme"] = theme
            self._save()

    def draft(self, conversation_id: int | None) -> str:
        drafts = self.state.get("drafts")
        text = drafts.get(_key(conversation_id)) if isinstance(drafts, dict) else None
        return text if isinstance(text, str) else ""

    @property
    def left_in_new_draft(self) -> bool:
        """The app was last left in a new conversation not saved yet, with something typed in it."""
        return self.state.get("left_in") == _key(None) and bool(self.draft(None))

    def set_draft(self, conversation_id: int | None, text: str) -> None:
        """Keep what is typed in a conversation (the app calls this as it leaves one: a quit, a switch),
        and remember it as the one the app was left in."""
        drafts = self.state.get("drafts")
        drafts = dict(drafts) if isinstance(drafts, dict) else {}
        if text.strip() and len(text) <= MAX_DRAFT_CHARS:
            drafts[_key(conversation_id)] = text
        else:
            drafts.pop(_key(conversation_id), None)
        if drafts != self.state.get("drafts", {}) or self.state.get("left_in") != _key(conversation_id):
            self.state["drafts"] = drafts
            self.state["left_in"] = _key(conversation_id)
            self._save()

    def _save(self) -> None:
        """Written to a new private file, then renamed over the old one; a failure keeps the old one."""
        try:
            partial = create_private_file(
                self.path.parent, f"{self.path.stem}.{os.getpid()}", ".partial", json.dumps(self.state).encode()
            )
            os.replace(partial, self.path)
        except OSError:
            pass  # a convenience: a full disk must not stop the app from quitting


def _key(conversation_id: int | None) -> str:
    return "new" if conversation_id is None else str(conversation_id)
