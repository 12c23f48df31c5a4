"""Every error Foldchat raises on purpose, in one place.

Each carries a one-line, user-facing message: the CLI prints `str(error)` and exits; the TUI shows it
as a notification. Anything that is not a `FoldchatError` is a bug.
"""

from __future__ import annotations


class FoldchatError(Exception):
    """Base class: `str(error)` is a complete sentence a user can act on."""

    exit_code = 1


class UsageError(FoldchatError):
    """The user asked for something malformed (bad arguments, bad input file)."""

    exit_code = 2


class InvalidMessage(UsageError):
    """A chat message that is not valid OpenAI chat format."""


class UnknownModel(UsageError):
    """A model litellm does not know and no window was given for it."""


class ConfigError(UsageError):
    """The config file or a FOLDCHAT_* variable is invalid."""


class CurrentTurnTooLarge(FoldchatError):
    """The last user message and what follows it cannot fit in the window, even after folding."""


class FoldFailed(FoldchatError):
    """Folding could not produce a valid context; the original context is kept."""


class ProviderError(FoldchatError):
    """A model call failed; the message says why and what to do."""


class LocalModelError(FoldchatError):
    """The embedded local model could not be prepared or started."""


class StorageError(FoldchatError):
    """The conversation database could not be read or written."""


class DiskFull(StorageError):
    """The disk (or the database's size limit) is full: nothing more can be written until space frees."""


class InputTooLarge(UsageError):
    """An input file or prompt is larger than the configured cap (`max_input_bytes`)."""


class ExportError(FoldchatError):
    """An export could not be written where it was asked to go."""
