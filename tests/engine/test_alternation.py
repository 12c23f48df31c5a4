from foldchat.engine.alternation import MISSING_RESULT, current_turn_start, repair
from foldchat.engine.invariants import violations
from foldchat.engine.messages import parse_messages


def call(cid, name="f"):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": "{}"}}


def test_valid_history_is_returned_as_the_same_objects():
    msgs = parse_messages(
        [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "A"},
            {"role": "tool", "tool_call_id": "b", "content": "B"},
            {"role": "assistant", "content": "done"},
        ]
    )
    fixed = repair(msgs)
    assert not fixed.changed
    assert all(x is y for x, y in zip(fixed.messages, msgs, strict=True))


def test_parallel_results_are_reordered_and_missing_ones_synthesised():
    msgs = parse_messages(
        [
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b"), call("c")]},
            {"role": "tool", "tool_call_id": "c", "content": "C"},
            {"role": "tool", "tool_call_id": "a", "content": "A"},
        ]
    )
    out = repair(msgs).messages
    assert [m.tool_call_id for m in out[2:]] == ["a", "b", "c"]
    assert out[3].text == MISSING_RESULT
    assert violations(out) == []


def test_orphaned_results_become_notes_and_same_roles_merge():
    msgs = parse_messages(
        [
            {"role": "assistant", "content": "hello"},
            {"role": "tool", "tool_call_id": "zzz", "content": "stray output"},
            {"role": "user", "content": "one"},
            {"role": "user", "content": "two"},
            {"role": "system", "content": "late system"},
        ]
    )
    fixed = repair(msgs)
    out = fixed.messages
    assert out[0].role == "system" and out[0].text == "late system"
    assert out[1].role == "user"  # placeholder: a conversation starts with the user
    assert "stray output" in out[3].text and "one" in out[3].text and "two" in out[3].text
    assert violations(out) == []
    assert fixed.changed


def test_current_turn_starts_at_last_user_message():
    msgs = parse_messages(
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
            {"role": "assistant", "content": None, "tool_calls": [call("x")]},
            {"role": "tool", "tool_call_id": "x", "content": "X"},
        ]
    )
    assert current_turn_start(msgs) == 2
