"""Message numbers for what was stored while the conversation is shown.

A message read from the database comes numbered (`presenters.transcript_state`); one stored during a turn
(the prompt, the reply, a recall round's call and results) learns its id as it is stored, and its number
here as the turn ends, all of them in one repaint (a prompt numbered as soon as it was stored repainted its
header while the model was awaited: a frame more per turn). The number is the engine's own
(`Context.message_numbers`, what snapshots, stubs, the inspector and `recall` cite), never counted by the
app, which does not see every message stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from foldchat.engine import off_loop

from .message import MessageView

if TYPE_CHECKING:
    from foldchat.engine import Session

    from .transcript import Transcript


def number_stored(transcript: Transcript, session: Session) -> None:
    """Number the shown messages stored since the last time, off the reply's way (a worker of its own: the
    reply does not wait for it, and a reply cancelled does not cancel it)."""
    if _unnumbered(transcript):
        transcript.run_worker(_number(transcript, session), group="numbering", exit_on_error=False)


def _unnumbered(transcript: Transcript) -> list[MessageView]:
    """The mounted views of stored messages without a number (what is not mounted was read numbered)."""
    return [v for v in transcript.message_views() if v.data.id is not None and v.data.number is None]


async def _number(transcript: Transcript, session: Session) -> None:
    conversation = session.conversation_id
    numbers = await off_loop(session.context.message_numbers)
    if session.conversation_id != conversation:
        return  # another conversation opened meanwhile: its messages came numbered
    numbered(transcript, numbers)


def numbered(transcript: Transcript, numbers: Mapping[int, int]) -> None:
    """Number the shown messages stored since the last time from `numbers` (a turn's end brings them:
    `TurnEnded.numbers`)."""
    for view in _unnumbered(transcript):
        assert view.data.id is not None
        view.data.number = numbers.get(view.data.id)
        view.refresh_header()
