"""The schema's history: a database made by the first schema, with data in it, opened by this Foldchat
comes out at the last schema with every row kept and every migration recorded by name, in order."""

import json
import sqlite3
import time

from foldchat.engine.messages import Message
from foldchat.engine.store import MIGRATIONS, Store
from foldchat.engine.store.migrations import applied


def _first_schema_file(path):
    """A file as the first Foldchat wrote it: one conversation, two messages, one fold."""
    db = sqlite3.connect(path)
    MIGRATIONS[0](db)
    now = time.time()
    db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'trip', ?, ?)", (now, now))
    for role, text in (("user", "my locker code is 8812-KESTREL"), ("assistant", "Noted.")):
        db.execute(
            "INSERT INTO messages (conversation_id, role, payload, created_at, updated_at) VALUES (1, ?, ?, ?, ?)",
            (role, json.dumps({"role": role, "content": text}), now, now),
        )
    db.execute(
        "INSERT INTO folds (conversation_id, depth, first_message_id, last_message_id, snapshot, summarizer, trigger,"
        " tokens_before, tokens_after, created_at) VALUES (1, 1, 1, 2, '{}', 'rules', 'manual', 10, 5, ?)",
        (now,),
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()


def test_a_first_schema_file_comes_out_at_the_last_with_its_data(tmp_path):
    path = tmp_path / "first.db"
    _first_schema_file(path)
    store = Store(path)
    try:
        assert store.schema_version == len(MIGRATIONS)
        assert applied(store.db) == [step.__name__ for step in MIGRATIONS]
        texts = [m.message.text for m in store.messages(1)]
        assert texts == ["my locker code is 8812-KESTREL", "Noted."]
        assert store.folds(1)[0].tokens_after == 5
        assert [hit.conversation.id for hit in store.search("KESTREL")] == [1]  # indexed by a later migration
        mid = store.append(1, Message.user("too big"))
        store.mark_unsent(mid, "over the window")  # a status a later migration allowed
        store.drop_rule(1, "never X")  # a table a later migration made
        assert store.message(mid).status == "unsent" and store.dropped_rules(1) == ["never X"]
    finally:
        store.close()


def test_a_new_file_records_every_migration_and_reopening_writes_nothing(tmp_path):
    path = tmp_path / "new.db"
    Store(path).close()
    db = sqlite3.connect(path)
    names = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    changes = db.total_changes
    db.close()
    assert names == [step.__name__ for step in MIGRATIONS] and len(set(names)) == len(names)
    store = Store(path)
    try:
        assert store.db.total_changes == changes == 0  # an up-to-date file is only read
    finally:
        store.close()


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64  # an image attachment: its data must never be searchable words


def test_attached_texts_are_searched_in_files_made_before_and_messages_added_after(tmp_path, monkeypatch):
    """`list --search` and the history screen looked only at a message's own words, never at what a file
    attached to it says (stored once, apart from the message), though recall reads it."""
    from foldchat.engine.attachments import read_attachment, user_message
    from foldchat.engine.store import migrations

    path = tmp_path / "before.db"
    before = MIGRATIONS[: MIGRATIONS.index(migrations.attachments_in_full_text_search)]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)  # a file as the Foldchat before this one left it
    store = Store(path)
    notes = read_attachment("notes.md", b"# Trip\nThe funicular closes at 18:00.\n", 10_000)
    image = read_attachment("photo.png", PNG, 10_000)
    conversation = store.create_conversation()
    store.append(conversation, user_message("read my notes", [notes, image]))
    store.append(conversation, Message.assistant("Done."))
    assert store.search("funicular") == []
    store.close()
    monkeypatch.undo()

    store = Store(path)
    try:
        assert [(h.conversation.id, h.excerpt) for h in store.search("funicular")] == [
            (1, "The funicular closes at 18:00.")
        ]
        later = store.create_conversation()
        store.append(later, user_message("and these", [read_attachment("plan.txt", b"Ride the gondola\n", 10_000)]))
        store.append(later, Message.user("plain words"))
        store.append(later, Message.from_dict({"role": "user", "content": [{"type": "text", "text": "a part"}]}))
        assert [h.excerpt for h in store.search("gondola")] == ["Ride the gondola"]
        assert store.search("iVBORw0KGgo") == [] and store.search("PNG") == []  # an image's data is no words
        assert [h.conversation.id for h in store.search("read my notes")] == [conversation]
    finally:
        store.close()
