"""Switching providers mid-conversation, through `foldchat import` + `foldchat ask` and litellm,
against loopback servers that validate like OpenAI and Anthropic do, and the real local model."""

from __future__ import annotations

import json
import sqlite3

import pytest
from foldchat.engine.messages import Message
from foldchat.engine.store import Store

from cli.in_process import foldchat_main
from servers.fake_anthropic import FakeAnthropic
from servers.fake_openai import FakeOpenAI

LONG_ID = "call_" + "a1B2c3D4" * 7  # 61 characters: too long for OpenAI, fine for Anthropic
OUTPUT = "\n".join(f"line {n}: total = {n * 7}" for n in range(300))


def call(cid, name, **args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


HISTORY = [
    {"role": "system", "content": "You are a careful assistant."},
    {"role": "user", "content": "Check invoices INV-1 and INV-2 for ticket PAY-88."},
    {"role": "assistant", "content": None, "tool_calls": [call(LONG_ID, "read_file", path="inv1.csv"),
                                                           call("call_short1", "read_file", path="inv2.csv")]},
    {"role": "tool", "tool_call_id": LONG_ID, "content": OUTPUT},
    {"role": "tool", "tool_call_id": "call_short1", "content": OUTPUT},
    {"role": "assistant", "content": "Both invoices add up; INV-2 has a rounding issue."},
]  # fmt: skip


@pytest.fixture
def servers(tmp_path, monkeypatch):
    openai, anthropic = FakeOpenAI().start(), FakeAnthropic().start()
    config = tmp_path / "config.toml"
    config.write_text(
        f"""
request_timeout = 20
max_retries = 0
[models.gpt]
model = "openai/fake-model"
api_base = "{openai.base_url}"
api_key_env = "FAKE_OPENAI_KEY"
context_window = 128000
[models.claude]
model = "anthropic/claude-3-5-haiku-latest"
api_base = "{anthropic.base_url}"
api_key_env = "FAKE_ANTHROPIC_KEY"
context_window = 200000
"""
    )
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(config))
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "db.sqlite"))
    monkeypatch.setenv("FAKE_OPENAI_KEY", "sk-openai")
    monkeypatch.setenv("FAKE_ANTHROPIC_KEY", "sk-anthropic")
    yield openai, anthropic, tmp_path
    openai.stop()
    anthropic.stop()


def foldchat(*args, stdin=""):
    return foldchat_main(*args, stdin=stdin)  # in this process: the requests each provider got are the point


def payloads(db) -> dict[int, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT id, payload FROM messages WHERE status = 'complete'").fetchall())


def ask(cid, model, text):
    done = foldchat("ask", text, "--conversation", cid, "--model", model)
    assert done.returncode == 0, done.stderr
    return done


def test_openai_anthropic_local_openai_gemini_anthropic(servers):
    openai, anthropic, tmp = servers
    db = tmp / "db.sqlite"
    history = tmp / "history.json"
    history.write_text(json.dumps(HISTORY))
    imported = foldchat("import", str(history), "--model", "gpt")
    assert imported.returncode == 0, imported.stderr
    cid = imported.stdout.strip()
    stored = payloads(db)
    assert [json.loads(p) for p in stored.values()] == HISTORY  # stored as given

    ask(cid, "gpt", "Continue with OpenAI.")
    sent = openai.requests[-1]["messages"]
    assert all(len(c["id"]) <= 40 for m in sent for c in m.get("tool_calls") or [])
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == [c["id"] for c in sent[2]["tool_calls"]]

    ask(cid, "claude", "Now Claude: anything else?")
    last = Store(db).messages(int(cid))[-1].message
    assert last.extras["thinking_blocks"][0]["signature"].startswith("sig-")  # signed thinking kept
    ask(cid, "claude", "Still Claude.")
    assert any(b.get("type") == "thinking" for m in anthropic.requests[-1]["messages"] for b in _blocks(m))

    local = ask(cid, "local", "And what does the local model say?")
    assert "foldchat: folded" in local.stderr  # 128k → 8k window: the history folds before sending
    assert Store(db).active_fold(int(cid)).trigger == "switch"
    ask(cid, "gpt", "Back to OpenAI.")

    # a stretch of conversation written by Gemini: thought signatures inside the tool-call ids
    store = Store(db)
    gemini_id = "call_7__thought__Q2lnbmF0dXJlIGJ5dGVz+/=="
    store.append(int(cid), Message.from_dict({"role": "user", "content": "Gemini: look at INV-3."}))
    store.append(int(cid), Message.from_dict({"role": "assistant", "content": None,
                                              "tool_calls": [call(gemini_id, "read_file", path="inv3.csv")]}),
                 model="gemini/gemini-2.0-flash")  # fmt: skip
    store.append(int(cid), Message.from_dict({"role": "tool", "tool_call_id": gemini_id, "content": "ok"}))
    store.append(
        int(cid), Message.from_dict({"role": "assistant", "content": "INV-3 is fine."}), model="gemini/gemini-2.0-flash"
    )
    before = payloads(db)

    ask(cid, "claude", "Claude again: summarize the invoices.")
    sent = anthropic.requests[-1]["messages"]
    uses = [b["id"] for m in sent for b in _blocks(m) if b.get("type") == "tool_use"]
    assert uses and all("__thought__" not in u for u in uses)

    assert openai.rejected == [] and anthropic.rejected == []  # every request accepted
    after = payloads(db)
    assert {k: after[k] for k in before} == before  # nothing in the transcript changed


def _blocks(message):
    content = message.get("content")
    return content if isinstance(content, list) else []


def test_an_image_given_by_url_is_left_out_for_anthropic_and_the_user_told(servers):
    """A ChatGPT conversation with an image URL could not continue on Anthropic: litellm rejects an
    `image_url` that is not a `data:` URL (and Foldchat fetches nothing)."""
    openai, anthropic, tmp = servers
    url = "https://files.example.com/receipt-4471.png"
    history = tmp / "history.json"
    history.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "What is the total on this receipt?"},
                                     {"type": "image_url", "image_url": {"url": url}}]},
        {"role": "assistant", "content": "The total is 42.80 EUR."},
    ]))  # fmt: skip
    config = tmp / "config.toml"  # a Claude that takes images (the fixture's Haiku takes none)
    config.write_text(config.read_text() + f"""
[models.sonnet]
model = "anthropic/claude-sonnet-4-5"
api_base = "{anthropic.base_url}"
api_key_env = "FAKE_ANTHROPIC_KEY"
context_window = 200000
""")  # fmt: skip
    cid = foldchat("import", str(history), "--model", "gpt").stdout.strip()
    ask(cid, "gpt", "Thanks. And the date?")  # OpenAI takes the link as it is
    assert url in json.dumps(openai.requests[-1]["messages"])
    done = ask(cid, "sonnet", "Claude, what was the total again?")
    assert "1 image left out of this request: 1 given as a web address (anthropic takes only" in done.stderr
    sent = json.dumps(anthropic.requests[-1]["messages"])
    assert f"[image left out: {url}" in sent and '"type": "image"' not in sent
    assert anthropic.rejected == []
    haiku = ask(cid, "claude", "And Haiku?")  # a model that takes no images at all is told too
    assert "1 image left out of this request: 1 that claude cannot see" in haiku.stderr
