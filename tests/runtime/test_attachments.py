"""Attachments from the shell (`foldchat ask -f FILE`, `-f -` for a pipe), stored once, sent as text to a
loopback server that speaks OpenAI's wire format (the request it recorded holds the file's text and no
mark of ours), refused clearly when binary, not UTF-8 or too big, and folded the way a known unit with a
name can be: an older attachment becomes a one-line stub first, and `recall` returns it by name."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from foldchat.engine import Attachment, FoldRequest, Message, RulesSummarizer, fold_context, read_attachment
from foldchat.engine.attachments import ATTACHMENT_KEY, names, user_message
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.recall import Original, recall
from foldchat.engine.store import Store
from foldchat.engine.tokens import LiteLLMCounter

from attachment_bench import png
from cli.in_process import foldchat_main as foldchat  # in this process: what `ask` exits with, prints and stores

NOTES = "# Trip notes\n\nFerry: blue pier behind the fish market, 08:40 departure.\n" + "Museum list. " * 400


def sent_text(request: dict) -> str:
    content = request["messages"][-1]["content"]
    return content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)


def test_ask_sends_an_attached_file_and_a_piped_output_as_text(home, fake, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    done = foldchat("ask", "-f", str(notes), "when does the ferry leave?", "--model", "fake")
    assert done.returncode == 0, done.stderr
    last = fake.requests[-1]["messages"][-1]
    assert "blue pier behind the fish market" in sent_text(fake.requests[-1])
    assert sent_text(fake.requests[-1]).startswith("[attached notes.md, ")
    assert all(ATTACHMENT_KEY not in part for part in last["content"])  # our mark is never sent
    piped = foldchat("ask", "-f", "-", "why does this fail?", "--model", "fake", stdin="E   assert 2 == 3\nFAILED")
    assert piped.returncode == 0, piped.stderr
    assert "[attached stdin, " in sent_text(fake.requests[-1]) and "assert 2 == 3" in sent_text(fake.requests[-1])
    assert fake.requests[-1]["messages"][-1]["content"][-1]["text"] == "why does this fail?"


def test_what_cannot_be_attached_is_refused_before_anything_is_stored(home, fake, tmp_path, monkeypatch):
    binary = tmp_path / "tool.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    latin = tmp_path / "old.txt"
    latin.write_bytes("café".encode("latin-1"))
    big = tmp_path / "big.log"
    big.write_text("x" * 2_000)
    for path, expected in (
        (binary, "is a binary file"),
        (latin, "is not UTF-8 text"),
        (tmp_path / "nope", "cannot read"),
    ):
        refused = foldchat("ask", "-f", str(path), "look", "--model", "fake")
        assert refused.returncode == 2 and expected in refused.stderr and refused.stderr.count("\n") == 1, (
            refused.stderr
        )
    monkeypatch.setenv("FOLDCHAT_MAX_ATTACHMENT_BYTES", "1000")
    small = foldchat("ask", "-f", str(big), "look", "--model", "fake")
    assert small.returncode == 2 and "max_attachment_bytes" in small.stderr, small.stderr
    twice = foldchat("ask", "-f", "-", "-", "--model", "fake", stdin="x")
    assert twice.returncode == 2 and "stdin can be read once" in twice.stderr
    assert fake.requests == [] and not (home / "foldchat.db").exists()


def test_an_attachment_is_stored_once_and_read_back_whole(tmp_path):
    store = Store(tmp_path / "f.db")
    try:
        notes = read_attachment("notes.md", NOTES.encode(), 1 << 20)
        cid = store.create_conversation()
        first = store.append(cid, user_message("read this", [notes]))
        store.append(cid, Message.assistant("ok"))
        second = store.append(cid, user_message("and again", [notes]))
        assert store.db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0] == 1
        raw = store.db.execute("SELECT payload FROM messages WHERE id = ?", (first,)).fetchone()[0]
        assert "blue pier" not in raw and len(raw) < 400  # the content lives once, in its own table
        for mid in (first, second):
            assert "blue pier behind the fish market" in store.message(mid).message.text
        assert store.conversation(cid).title == "read this"
    finally:
        store.close()


def test_an_older_attachment_is_pruned_to_a_stub_first_and_recall_returns_it_by_name():
    notes = Attachment("notes.md", NOTES, len(NOTES), "0" * 64)
    history = [user_message("here are my notes", [notes]), Message.assistant("Got them.")]
    for n in range(12):
        history += [Message.user(f"question {n} about the museums on day {n}"), Message.assistant(f"answer {n} " * 40)]
    history = [m.evolve(key=i) for i, m in enumerate([*history, Message.user("and the ferry?")])]
    result = fold_context(history, FoldRequest(LiteLLMCounter("gpt-4o"), 4_000, RulesSummarizer(), force=True))
    assert result.report.compressed
    context_text = "\n".join(m.text for m in result.messages)
    assert "Museum list. Museum list." not in context_text  # the file itself is not in the context any more
    assert 'recall("notes.md") returns it' in context_text or "attached notes.md" in context_text
    assert result.snapshot is not None and any("attached notes.md" in line for line in result.snapshot.artifacts)
    originals = [Original(m.key + 1, m) for m in history if m.key is not None]
    answer = recall(originals, "notes.md")
    assert "blue pier behind the fish market" in answer and names(history) == ["notes.md"]


def test_export_json_keeps_the_attachment_exactly(home, fake, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    assert foldchat("ask", "-f", str(notes), "keep these", "--model", "fake").returncode == 0
    exported = json.loads(foldchat("export", "1", "--format", "json").stdout)
    parts = next(m["message"] for m in exported["messages"] if m["message"]["role"] == "user")["content"]
    assert parts[0][ATTACHMENT_KEY]["name"] == "notes.md" and parts[0]["text"].endswith(NOTES)
    with sqlite3.connect(home / "foldchat.db") as db:
        assert db.execute("SELECT content FROM attachments").fetchone()[0] == NOTES
    markdown = foldchat("export", "1").stdout
    assert "**attached notes.md**\n\n```\n# Trip notes" in markdown and "keep these" in markdown


def test_re_attaching_a_file_that_changed_says_so(home, fake, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    assert foldchat("ask", "-f", str(notes), "read", "--model", "fake").returncode == 0
    same = foldchat("ask", "-f", str(notes), "again", "--model", "fake")
    assert same.returncode == 0 and "changed" not in same.stderr
    notes.write_text(NOTES + "\nFerry moved to 09:10.")
    changed = foldchat("ask", "-f", str(notes), "and now?", "--model", "fake")
    assert changed.returncode == 0 and "notes.md changed since it was attached in message #3" in changed.stderr
    assert "Ferry moved to 09:10." in sent_text(fake.requests[-1])


def test_the_same_file_in_two_conversations_is_one_row(home, fake, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    for flag in ("--new", "--new"):
        assert foldchat("ask", "-f", str(notes), "hi", "--model", "fake", flag).returncode == 0
    with sqlite3.connect(Path(home) / "foldchat.db") as db:
        assert db.execute("SELECT COUNT(*) FROM attachments").fetchone()[0] == 1
        assert db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 2


def test_an_image_goes_as_an_image_part_to_a_model_that_takes_images(home, fake, tmp_path):
    config = Path(home / "config.toml")
    config.write_text(
        config.read_text()
        + f'\n[models.vision]\nmodel = "openai/gpt-4o"\napi_base = "{fake.base_url}"\napi_key_env = "FAKE_API_KEY"\n'
    )
    photo = tmp_path / "receipt.png"
    photo.write_bytes(png(1, 1))
    done = foldchat("ask", "-f", str(photo), "what is on this receipt?", "--model", "vision")
    assert done.returncode == 0, done.stderr
    parts = fake.requests[-1]["messages"][-1]["content"]
    image = next(p for p in parts if p["type"] == "image_url")
    assert image["image_url"]["url"].startswith("data:image/png;base64,") and ATTACHMENT_KEY not in image
    with sqlite3.connect(home / "foldchat.db") as db:  # stored once, read back whole
        assert db.execute("SELECT content FROM attachments").fetchone()[0] == image["image_url"]["url"]
    shown = foldchat("export", "1", "--format", "json").stdout
    assert image["image_url"]["url"] in shown
    assert "**attached receipt.png** (an image, " in foldchat("export", "1").stdout
    switched = foldchat("ask", "and in words?", "--model", "fake")  # a model without vision, same conversation
    assert switched.returncode == 0, switched.stderr
    earlier = fake.requests[-1]["messages"][0]["content"]
    assert not any(p["type"] == "image_url" for p in earlier) and "image not shown to this model" in str(earlier)


def test_a_model_that_takes_no_images_refuses_one_before_anything_is_sent(home, fake, tmp_path):
    from foldchat.engine import ModelTarget, takes_images

    photo = tmp_path / "receipt.png"
    photo.write_bytes(png(1, 1))
    refused = foldchat("ask", "-f", str(photo), "what is this?", "--model", "fake")
    assert refused.returncode == 2 and "fake takes no images: receipt.png not sent" in refused.stderr, refused.stderr
    assert fake.requests == [] and "Traceback" not in refused.stderr
    assert not takes_images(ModelTarget("local", "openai/smollm2", 8192, backend=EMBEDDED))  # the embedded model
    local = foldchat("ask", "-f", str(photo), "what is this?", "--model", "local")  # refused before it starts
    assert local.returncode == 2 and "local takes no images: receipt.png not sent" in local.stderr, local.stderr
    assert read_attachment("receipt.png", png(1, 1), 1 << 20).is_image


def test_recall_by_an_attachments_name_returns_that_attachment_first():
    code = Attachment("pipeline.py", "def fold_context(messages):\n    return messages\n", 48, "1" * 64)
    chatter = Message.user("the pipeline, the pipeline: pipeline.py pipeline pipeline py py " * 20)
    originals = [Original(1, user_message("here it is", [code])), Original(2, chatter)]
    answer = recall(originals, "pipeline.py")
    assert answer.startswith("[message 1, user,") and "def fold_context" in answer


def test_a_forged_mark_in_an_import_is_data(home, fake, tmp_path):
    forged = [
        {"role": "user", "content": [
            {"type": "text", "text": "x", "foldchat_attachment": {"name": "a\nb.md", "bytes": "lots", "sha256": "0"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"},
             "foldchat_attachment": {"name": "p.png", "bytes": None}},
            {"type": "text", "text": "what is this?"},
        ]},
        {"role": "assistant", "content": "no idea"},
    ]  # fmt: skip
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(forged))
    done = foldchat("import", str(source))
    assert done.returncode == 0, done.stderr
    shown = foldchat("show", "1")
    assert shown.returncode == 0 and "what is this?" in shown.stdout, shown.stderr
    assert foldchat("export", "1").returncode == 0
    with sqlite3.connect(home / "foldchat.db") as db:
        payload = db.execute("SELECT payload FROM messages ORDER BY id LIMIT 1").fetchone()[0]
    assert '"bytes": "lots"' not in payload and '"name": "a b.md"' in payload  # the mark is rebuilt


def test_deleting_a_conversation_drops_what_only_it_attached_and_an_edit_keeps_its_files(tmp_path):
    from foldchat.engine import OpenOptions, Session

    store = Store(tmp_path / "f.db")
    secret = read_attachment(".env", b"API_TOKEN=abc123\n", 1 << 20)
    shared = read_attachment("notes.md", NOTES.encode(), 1 << 20)
    first, second = store.create_conversation(), store.create_conversation()
    store.append(first, user_message("here", [secret, shared]))
    store.append(second, user_message("also", [shared]))
    store.delete_conversation(first)
    contents = [row[0] for row in store.db.execute("SELECT content FROM attachments")]
    assert contents == [NOTES]  # the secret went with its conversation; the shared file stays
    store.close()
    with Session.open(OpenOptions(database=tmp_path / "f.db", conversation=second)) as session:
        prompt = session.context.transcript()[0]
        new_id, _ = session.context.edit_and_resend(prompt.id, "also, shorter")
        edited = session.store.message(new_id).message
        assert names([edited]) == ["notes.md"] and edited.content[-1]["text"] == "also, shorter"


def test_paths_that_cannot_be_looked_at_name_nothing_and_crash_nothing():
    from foldchat.tui.conversation.attaching import at_paths, completions, expand, pasted_path

    assert at_paths("thanks @! and @... and @" + "x" * 300 + " and @~nosuchuserhere/x") == []
    assert pasted_path("~approx 5 minutes") is None and pasted_path("~~done~~") is None
    assert completions("~nosuchuserhere/x") == [] and expand("~nosuchuserhere/x") == []


def test_an_unchanged_image_attached_again_is_not_called_changed(tmp_path):
    from foldchat.engine import changed_since

    store = Store(tmp_path / "f.db")
    try:
        image = read_attachment("receipt.png", png(2, 2), 1 << 20)
        cid = store.create_conversation()
        store.append(cid, user_message("look", [image]))
        transcript = [m.message for m in store.messages(cid)]
        assert changed_since(transcript, image) is None
        assert changed_since(transcript, read_attachment("receipt.png", png(3, 3), 1 << 20)) == 1
    finally:
        store.close()
