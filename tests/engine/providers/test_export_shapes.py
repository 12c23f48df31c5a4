"""Shapes that real exports have: OpenAI arrays converted from ChatGPT
exports carry tool results without a `tool_call_id` and python-tool calls whose arguments are raw code.
They are accepted, repaired in the context, sent to a provider that parses arguments, and stored as given."""

from __future__ import annotations

import json
import sqlite3

from foldchat.engine import Message, parse_messages
from foldchat.engine.alternation import repair
from foldchat.engine.providers.adapt import TargetRules, adapt, json_object_arguments
from test_switching import ask, foldchat, servers  # noqa: F401  (fixture)

PYTHON_CODE = "import pandas as pd\ndf = pd.read_csv('/mnt/data/sales_2024.csv')\ndf.groupby('region').sum()"
CHATGPT_SHAPED = [
    {"role": "user", "content": "Sum sales_2024.csv by region, ticket DATA-311."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_py1", "type": "function", "function": {"name": "python", "arguments": PYTHON_CODE}}]},
    {"role": "tool", "name": "python", "content": "region  total\nnorth  1200\nsouth   950"},
    {"role": "assistant", "content": "North leads with 1,200."},
    {"role": "tool", "content": "stray output from a browsing step"},
    {"role": "user", "content": "And the median?"},
]  # fmt: skip


def test_tool_result_without_call_id_is_accepted_and_round_trips():
    messages = parse_messages(CHATGPT_SHAPED)
    assert [m.to_dict() for m in messages] == CHATGPT_SHAPED


def test_repair_pairs_by_position_and_keeps_orphans_visible():
    repaired = repair(parse_messages(CHATGPT_SHAPED)).messages
    roles = [m.role for m in repaired]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    assert repaired[2].tool_call_id == "call_py1" and "north  1200" in repaired[2].text
    # the stray result is not lost: it is visible text in the next user message
    assert "stray output from a browsing step" in repaired[4].text
    assert "And the median?" in repaired[4].text


def test_non_json_arguments_are_wrapped_for_every_provider():
    assert json.loads(json_object_arguments(PYTHON_CODE)) == {"input": PYTHON_CODE}
    assert json_object_arguments('{"path": "a.py"}') == '{"path": "a.py"}'
    assert json.loads(json_object_arguments("[1, 2]")) == {"input": "[1, 2]"}
    assert json_object_arguments("") == "{}"
    adapted, _ = adapt(repair(parse_messages(CHATGPT_SHAPED)).messages, TargetRules("anthropic"))
    arguments = adapted[1].tool_calls[0].arguments
    assert json.loads(arguments) == {"input": PYTHON_CODE}
    # the original message value is untouched (adapt works on copies)
    assert parse_messages(CHATGPT_SHAPED)[1].tool_calls[0].arguments == PYTHON_CODE


def test_compress_accepts_the_export_shape(tmp_path):
    done = foldchat("compress", "-", "--model", "gpt-4o-mini", "--force", stdin=json.dumps(CHATGPT_SHAPED))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    texts = json.dumps(out["messages"])
    assert "And the median?" in texts


def test_imported_export_shape_is_sent_to_anthropic_and_stored_as_given(servers):  # noqa: F811
    _openai, anthropic, tmp = servers
    done = foldchat("import", "-", stdin=json.dumps(CHATGPT_SHAPED[:-1]))
    assert done.returncode == 0, done.stderr
    cid = done.stdout.strip()
    ask(cid, "claude", "And the median?")
    with sqlite3.connect(tmp / "db.sqlite") as db:
        stored = [json.loads(p) for (p,) in db.execute("SELECT payload FROM messages ORDER BY id")]
    assert stored[: len(CHATGPT_SHAPED) - 1] == CHATGPT_SHAPED[:-1]
    sent = anthropic.requests[-1]
    tool_uses = [b for m in sent["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
                 if b.get("type") == "tool_use"]  # fmt: skip
    assert tool_uses and tool_uses[0]["input"] == {"input": PYTHON_CODE}


def test_message_helpers_still_require_ids_for_new_results():
    assert Message.tool("c1", "ok").tool_call_id == "c1"
