"""Opening the conversation the app starts in, off the UI thread (`ChatScreen.open_session`).

The session and what the transcript shows are opened in a worker thread with the engine's imports
(~0.25 s of pydantic models): imported on the UI thread, they held back the composer's first frame.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foldchat.engine import OpenOptions, Session

    from .presenters import TranscriptState


def open_backend(options: OpenOptions) -> tuple[Session, TranscriptState]:
    from foldchat.engine import Session, Workspace

    from .presenters import transcript_state

    workspace = Workspace.open(options)
    # read here: a file read on the UI thread could hang it (a FIFO as ui-state.json)
    if options.conversation is None and not options.new and workspace.remembered.left_in_new_draft:
        # the app was left while typing in a new conversation not saved yet: it opens there again, with the
        # draft (it opened the latest conversation, and the draft came back only with the next /new)
        options = replace(options, new=True)
    session = Session.open(options, workspace)
    return session, transcript_state(session)
