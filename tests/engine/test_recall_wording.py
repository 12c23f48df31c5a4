"""A request tells the model to `recall` only when it is offered the tool: the second fold of a trip told the
embedded local model "requests left out … (recall them by number)", and a pruned file's stub said
`recall("notes.md") returns it`, tools it does not have. The stored snapshot and stubs stay as they are;
what a request to a model without the tool says is adapted where the context is built for its target."""

from __future__ import annotations

import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.attachments import read_attachment, stubbed, user_message
from foldchat.engine.config import Settings
from foldchat.engine.context import Context
from foldchat.engine.fold.fit import LEFT_OUT
from foldchat.engine.messages import Message
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.store import Store

HOSTED = ModelTarget(name="gpt-4o", litellm_model="gpt-4o", window=128_000)
LOCAL = ModelTarget(name="local", litellm_model="openai/smollm2", window=8192, backend=EMBEDDED)
SNAPSHOT = snap.render_message_text(
    snap.Snapshot(user_requests=[f"2 requests {LEFT_OUT} (#1, #3)", "we come back on 23 May (#5)"], key_knowledge=["Porto (#2)"])
)


def folded_context() -> list[Message]:
    notes = read_attachment("notes.md", b"the gate code is 2291\n" * 100, 1_000_000)
    return [
        snap.snapshot_message(SNAPSHOT),
        Message.assistant(snap.ACKNOWLEDGEMENT),
        stubbed(user_message("read my notes", [notes]), 7),
        Message.assistant("Read them."),
        Message.user("when do we come back?"),
    ]


def sent(tmp_path, target: ModelTarget, recall: bool = True) -> tuple[str, str]:
    """The snapshot and the stubbed message as a request to `target` carries them."""
    settings = Settings(fold=FoldPolicy(recall=recall))
    context = Context(Store(tmp_path / f"{target.name}-{recall}.db"), ModelRegistry(settings), settings, None)
    messages = folded_context()
    adapted = context.adapted(target, messages, [])
    assert messages == folded_context()  # what is stored and built is not changed, only what is sent
    said = [m for m in adapted if m.role != "system"]  # the local model's requests open with Foldchat's prompt
    return said[0].text, said[2].text


def test_a_model_offered_recall_is_told_it_can_recall(tmp_path):
    snapshot, stub = sent(tmp_path, HOSTED)
    assert LEFT_OUT in snapshot and "(#1, #3)" in snapshot
    assert 'recall("notes.md") returns it' in stub


@pytest.mark.parametrize(("target", "recall"), [(LOCAL, True), (HOSTED, False)])
def test_a_model_without_the_tool_is_not_told_to_use_it(tmp_path, target, recall):
    snapshot, stub = sent(tmp_path, target, recall)
    assert "recall" not in snapshot and "recall" not in stub
    assert "2 requests left out of this snapshot (#1, #3)" in snapshot  # what was left out is still said
    assert "we come back on 23 May (#5)" in snapshot and "Porto (#2)" in snapshot
    assert "[attached notes.md, " in stub and "message #7" in stub and "read my notes" in stub
