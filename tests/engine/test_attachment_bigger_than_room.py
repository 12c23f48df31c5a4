"""Attachments bigger than the room (docs/design.md §13, §14): a file that does not fit the window is stored
whole, the request carries its start with one line saying so, and the parts a message asks about come
back by recall, in the same turn and later. A 6.4k-token file in a 6k window had been refused outright."""

from __future__ import annotations

import asyncio
import json

from foldchat.engine import Session
from foldchat.engine.attachments import read_attachment
from foldchat.engine.turn_events import Refused
from test_session_folds import open_session


def harbour_settings() -> bytes:
    lines = ['"""Harbour settings, one block per pier."""']
    for pier in range(1, 121):
        lines += [f"PIER_{pier}_DEPTH_M = {4 + pier % 9}.{pier % 10}",
                  f"PIER_{pier}_MAX_LENGTH_M = {40 + pier * 3}",
                  f"PIER_{pier}_BERTH_FEE_EUR = {120 + pier * 11}  # per night",
                  f"PIER_{pier}_CRANE = {'True' if pier % 3 == 0 else 'False'}"]  # fmt: skip
    return "\n".join(lines).encode()


def turn(session: Session, text: str, **options) -> list[object]:
    async def run() -> list[object]:
        return [event async for event in session.turn(text, **options)]

    return asyncio.run(run())


def test_a_file_bigger_than_the_window_is_sent_cut_and_its_parts_are_recalled(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch, 6_000) as session:
        attached = read_attachment("harbour_settings.py", harbour_settings(), 1_000_000)
        assert session.counter().count_text(attached.text) > 6_000
        events = turn(session, "what does harbour_settings.py set for pier 57?", attachments=[attached])
        assert not any(isinstance(e, Refused) for e in events)
        sent = json.dumps(fake.requests[-1]["messages"], ensure_ascii=False)
        assert "harbour_settings.py: too big for the window" in sent  # the one line that says so
        assert "PIER_1_DEPTH_M" in sent  # its start
        assert "PIER_57_BERTH_FEE_EUR = 747" in sent  # the part asked about, recalled
        stored = session.context.transcript()[0].message.text
        assert "PIER_120_CRANE = True" in stored  # stored whole
        turn(session, "and the berth fee at pier 44?")
        assert "PIER_44_BERTH_FEE_EUR = 604" in json.dumps(fake.requests[-1]["messages"])
