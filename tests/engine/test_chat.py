"""Context and FoldChain: the context rebuilt from the transcript plus the stored fold is the one the fold made."""

from __future__ import annotations

import json

from foldchat.engine.config import Settings
from foldchat.engine.context import Context
from foldchat.engine.fold.chain import FoldChain
from foldchat.engine.messages import Message
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.providers.target import ModelTarget
from foldchat.engine.store import Store


def test_rebuilt_context_matches_the_fold_report_even_with_a_condensed_message(tmp_path):
    settings = Settings(fold=FoldPolicy(min_messages=2, reserved_output=100))
    store = Store(tmp_path / "s.db")
    cid = store.create_conversation()
    context = Context(store, ModelRegistry(settings), settings, cid)
    session = FoldChain(context)
    target = ModelTarget(name="gpt-4o", litellm_model="gpt-4o", window=20_000)
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": "big.log"})},
    }
    for message in [
        Message.user("Start: analyse PAY-7. " + "background " * 3000),
        Message.assistant("Understood, reading the log next."),
        Message.user("Read big.log please."),
        Message.from_dict({"role": "assistant", "content": None, "tool_calls": [call]}),
        Message.tool("c1", "\n".join(f"12:00:{n % 60:02d} INFO request {n} ok" for n in range(1200))),
        Message.assistant("The log is clean."),
        Message.user("Thanks, what next?"),
    ]:
        store.append(cid, message)
    report = session.fold(target, force=True)
    assert report is not None and report.compressed and report.condensed_messages
    assert context.usage(target).tokens == report.tokens_after
    raw_tail = session.registry.counter(target).count(session.context.messages())  # without condensing again
    assert raw_tail > report.tokens_after  # so the big result really is in the kept tail
    transcript = store.messages(cid)
    assert transcript[4].message.text.count("INFO") == 1200  # the transcript keeps the original
