"""adapt(): a context rewritten for the provider it is sent to, the transcript untouched."""

from __future__ import annotations

import json
from dataclasses import replace

from foldchat.engine.invariants import violations
from foldchat.engine.messages import parse_messages
from foldchat.engine.providers.adapt import THOUGHT_MARK, TargetRules, adapt, map_call_id
from hypothesis import given, settings, strategies as st

OPENAI, ANTHROPIC, MISTRAL, GEMINI = (TargetRules(p) for p in ("openai", "anthropic", "mistral", "gemini"))
TEXT_ONLY = TargetRules("openai", vision=False)


def conversation(call_ids):
    calls = [{"id": c, "type": "function", "function": {"name": "f", "arguments": "{}"}} for c in call_ids]
    return parse_messages([
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {"url": "https://x/cat.png"}}]},
        {"role": "assistant", "content": None, "tool_calls": calls, "reasoning_content": "hmm",
         "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
        *({"role": "tool", "tool_call_id": c, "content": "ok"} for c in call_ids),
        {"role": "assistant", "content": "done"},
    ])  # fmt: skip


def test_ids_each_provider_rejects_are_mapped_consistently():
    long_id = "call_" + "x" * 60
    thought = "call_1__thought__c2lnbmF0dXJl+/=="
    msgs = conversation([long_id, thought, "ok_id"])
    for rules in (OPENAI, ANTHROPIC, MISTRAL):
        out, ids = adapt(msgs, rules)
        calls = [c.id for c in out[1].tool_calls]
        results = [m.tool_call_id for m in out[2:5]]
        assert calls == results  # the same mapping for the call and its result
        assert all(rules.accepts_id(c) and THOUGHT_MARK not in c for c in calls)
        assert sorted(ids.original.get(c, c) for c in calls) != []  # reversible for display
        assert {ids.original.get(c, c) for c in calls} <= {long_id, thought, "ok_id", "call_1"}
        assert violations(out) == []
    gemini, _ = adapt(msgs, GEMINI)
    assert thought in [c.id for c in gemini[1].tool_calls]  # Gemini keeps its thought signatures


def test_mapping_is_stable_across_sends():
    msgs = conversation(["call_" + "y" * 50])
    assert adapt(msgs, OPENAI)[0] == adapt(msgs, OPENAI)[0]
    assert map_call_id("z" * 50, MISTRAL) == map_call_id("z" * 50, MISTRAL)
    assert len(map_call_id("z" * 50, MISTRAL)) == 9


def test_reasoning_goes_back_only_to_its_provider():
    msgs = conversation(["a"])
    same, _ = adapt(msgs, ANTHROPIC, origins=[None, "anthropic", None, None])
    other, _ = adapt(msgs, OPENAI, origins=[None, "anthropic", None, None])
    assert "thinking_blocks" in same[1].extras
    assert "thinking_blocks" not in other[1].extras and "reasoning_content" not in other[1].extras


def test_images_only_for_models_that_take_them():
    msgs = conversation(["a"])
    assert adapt(msgs, OPENAI)[0][0] == msgs[0]
    text_only = adapt(msgs, TEXT_ONLY)[0][0]
    assert "[image not shown to this model: https://x/cat.png]" in text_only.text


def test_the_input_is_never_changed():
    msgs = conversation(["call_" + "q" * 50])
    before = json.dumps([m.to_dict() for m in msgs])
    adapt(msgs, MISTRAL)
    assert json.dumps([m.to_dict() for m in msgs]) == before


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=80), min_size=1, max_size=4, unique=True),
       st.sampled_from([OPENAI, ANTHROPIC, MISTRAL, GEMINI]))  # fmt: skip
def test_any_ids_come_out_valid_distinct_and_paired(ids, rules):
    out, _ = adapt(conversation(ids), rules)
    calls = [c.id for c in out[1].tool_calls]
    assert len(set(calls)) == len(calls)
    assert calls == [m.tool_call_id for m in out[2 : 2 + len(ids)]]
    if rules is not GEMINI:
        assert all(rules.accepts_id(c) for c in calls)


def test_the_local_models_rules_are_what_litellm_would_say_without_asking_it():
    from foldchat.engine.config import Settings
    from foldchat.engine.providers.adapt import rules_for, rules_for_target
    from foldchat.engine.providers.registry import ModelRegistry

    local = ModelRegistry(Settings()).resolve("local")
    assert local.is_local
    litellm_says = rules_for(local.litellm_model)  # litellm's answer for the same string
    # plus: its template reads text, and Foldchat's own system prompt goes first (local/system_prompt.py)
    assert rules_for_target(local) == replace(litellm_says, plain_text=True, own_prompt=True)
