"""The conversation on the chat screen: its widget (`Conversation`: the transcript, the composer, the send)
and the send's helpers (attaching files, editing an earlier prompt, refusing what cannot be sent)."""

from .widget import Conversation

__all__ = ["Conversation"]
