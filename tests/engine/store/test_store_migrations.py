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
