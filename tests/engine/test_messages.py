import copy
import pickle

import pytest
from foldchat.engine.errors import InvalidMessage
from foldchat.engine.messages import Message, ToolCall, dump_messages, parse_messages

ROUND_TRIP = [
    {"role": "system", "content": "be brief"},
    {
        "role": "user",
        "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:x"}}],
    },
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "thinking...",
        "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "sig=="}],
        "tool_calls": [
            {
                "id": "call_1__thought__abc",
                "type": "function",
                "function": {"name": "read", "arguments": "{}"},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1__thought__abc", "name": "read", "content": "ok"},
    {"role": "assistant", "content": "done", "provider_specific_fields": {"x": [1, 2]}},
]


def test_round_trip_keeps_provider_extras_untouched():
    assert dump_messages(parse_messages(ROUND_TRIP)) == ROUND_TRIP


def test_assistant_tool_call_message_may_omit_content():
    raw = {"role": "assistant", "tool_calls": ROUND_TRIP[2]["tool_calls"]}
    assert Message.from_dict(raw).to_dict() == raw


def test_messages_are_hashable_values():
    a, b = parse_messages(ROUND_TRIP), parse_messages(ROUND_TRIP)
    assert a == b and {*a} == {*b}
    with pytest.raises(AttributeError):
        a[0].role = "user"
    with pytest.raises(AttributeError):
        del a[2].tool_calls[0].name


def test_where_a_message_comes_from_is_not_part_of_its_value():
    said = Message.user("the ferry leaves at 9")
    placed = said.evolve(key=7, is_snapshot=True)
    assert (placed.key, placed.is_snapshot, said.key, said.is_snapshot) == (7, True, None, False)
    assert placed == said and hash(placed) == hash(said)
    assert said.evolve(content="the ferry leaves at 10") != said
    assert said != said.to_dict() and said.evolve(role="assistant") != said


def test_a_message_s_type_hints_can_be_read():
    """What libraries that read a class's hints do (pydantic, hypothesis): its annotations must evaluate."""
    import typing

    assert typing.get_type_hints(Message)["tool_calls"] == tuple[ToolCall, ...]
    assert typing.get_type_hints(ToolCall)["arguments"] is str


def test_evolve_refuses_a_field_a_message_does_not_have():
    with pytest.raises(TypeError, match="colour"):
        Message.user("x").evolve(colour="red")


@pytest.mark.parametrize("rebuilt", [copy.copy, copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))])
def test_a_copied_message_keeps_every_field(rebuilt):
    for message in parse_messages(ROUND_TRIP):
        placed = message.evolve(key=3, is_snapshot=True)
        again = rebuilt(placed)
        assert again == placed and (again.key, again.is_snapshot) == (3, True)
        assert again.to_dict() == placed.to_dict()
    call = ToolCall("c1", "read", "{}")
    assert rebuilt(call) == call and repr(rebuilt(call)) == repr(call)


def test_text_reads_parts_and_labels_images():
    assert parse_messages(ROUND_TRIP)[1].text == "see\n[image]"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"role": "bot", "content": "x"}, "unknown role"),
        ({"role": "user"}, "missing 'content'"),
        ({"role": "user", "content": None}, "null content"),
        ({"role": "user", "content": 3}, "content must be"),
        ({"role": "tool", "content": "x", "tool_call_id": 7}, "tool_call_id"),
        ({"role": "assistant", "content": None, "tool_calls": "x"}, "must be a list"),
        ({"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]}, "function"),
        ({"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]}, "'id'"),
        ({"role": "user", "content": "x", "tool_calls": []}, "only assistant"),
        ({"role": "user", "content": [{"text": "no type"}]}, "'type'"),
        ("just a string", "expected an object"),
    ],
)
def test_invalid_messages_name_the_problem(raw, problem):
    with pytest.raises(InvalidMessage, match=problem):
        parse_messages([raw])


def test_duplicate_call_ids_are_rejected():
    call = {"id": "same", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    with pytest.raises(InvalidMessage, match="share one id"):
        parse_messages([{"role": "assistant", "content": None, "tool_calls": [call, call]}])


def test_not_a_list_is_rejected():
    with pytest.raises(InvalidMessage, match="JSON array"):
        parse_messages({"role": "user"})
