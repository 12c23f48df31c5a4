"""A message that says what something is now (a count, a status): only the newest waiting one is worth
handling, so a newer one replaces it in the queue (Textual's `can_replace`)."""

from __future__ import annotations

from textual.message import Message


class Latest(Message):
    """A latest-value message: a newer one of the same class replaces it before it is handled."""

    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self)
