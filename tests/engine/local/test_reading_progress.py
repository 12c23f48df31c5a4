"""While the local model reads a long prompt it says how far it got, and the time left comes from the rate it
measured, not from a table: under load the table's "about 18 s" came at 87.6 s (issue 40 item 4)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from foldchat.engine.local import prefix_warm
from foldchat.engine.local.prefix_warm import progress_note, read_seconds, warm
from foldchat.engine.providers.events import TextDelta, Waiting
from foldchat.engine.providers.stream import stream_reply
from test_local_model import local_server, local_target  # noqa: F401  (a fixture)

pytestmark = pytest.mark.slow  # a minute on the real local model: started first (tests/conftest.py)


def progress(total: int, processed: int, ms: float, cache: int = 0) -> SimpleNamespace:
    return SimpleNamespace(total=total, processed=processed, time_ms=ms, cache=cache)


def test_the_time_left_is_what_is_left_at_the_rate_read_so_far():
    assert progress_note(progress(4096, 1024, 5000)) == ("read 1,024/4,096 tokens", 15.0)
    # tokens the server had cached cost nothing: the rate is of what it read itself
    assert progress_note(progress(4096, 2048, 5000, cache=1024)) == ("read 2,048/4,096 tokens", 10.0)
    assert progress_note(progress(4096, 4096, 9000)) is None  # all read: the first word is next
    assert progress_note(progress(4096, 0, 0)) is None
    assert progress_note(SimpleNamespace(total="x")) is None


def long_prompt(lines: int, topic: str = "the ferry to Naxos leaves pier") -> list[dict[str, str]]:
    text = " ".join(f"Note {n}: {topic} {n % 7} at {n % 24}:15." for n in range(lines))
    return [{"role": "user", "content": text + "\nWhen does the ferry of note 17 leave?"}]


async def test_the_real_server_says_how_far_it_read_before_the_first_word(local_server):  # noqa: F811
    target = local_target(local_server, max_output_tokens=4, temperature=0)
    target = target.__class__(**{**target.__dict__, "extra_body": {**target.extra_body, "return_progress": True}})
    notes: list[str] = []
    lefts: list[float | None] = []
    async for event in stream_reply(target, long_prompt(150), timeout=600):
        if isinstance(event, TextDelta):
            break
        if isinstance(event, Waiting) and event.reason.startswith("read "):
            notes.append(event.reason)
            lefts.append(event.left)
    assert notes, "no progress while the server read ~2,000 tokens"
    done = [int(note.split()[1].split("/")[0].replace(",", "")) for note in notes]
    assert done == sorted(done) and all(left is not None and left > 0 for left in lefts)


def test_a_read_ahead_measures_the_rate_the_next_estimate_uses(local_server, monkeypatch):  # noqa: F811
    monkeypatch.setattr(prefix_warm, "_measured_rate", None)
    table = read_seconds(4000, "smollm2", 2)
    # a prompt of its own: one the server read before costs it nothing, and says no rate
    fresh = long_prompt(60, "a train to Porto stops at platform")
    assert warm(local_target(local_server, max_output_tokens=1, temperature=0), fresh)
    rate = prefix_warm._measured_rate
    assert rate is not None and rate > 0
    assert read_seconds(4000, "smollm2", 2) == pytest.approx(4000 / rate)
    assert read_seconds(4000, "smollm2", 2) != table
