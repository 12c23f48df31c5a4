import sqlite3

import pytest
from foldchat.engine.errors import StorageError
from foldchat.engine.messages import Message
from foldchat.engine.store import MIGRATIONS, Store


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "f.db")
    yield s
    s.close()


def test_schema_wal_and_foreign_keys(store):
    assert store.schema_version == len(MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_migrations_run_forward_from_an_older_file(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.schema_version == len(MIGRATIONS)
    store.pin(store.append(store.create_conversation(), Message.user("x")))  # a table from v2


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="newer Foldchat"):
        Store(path)


def test_messages_round_trip_with_status_model_tokens_cost(store):
    cid = store.create_conversation()
    raw = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "hmm",
        "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }
    mid = store.append(cid, Message.from_dict(raw), model="gpt-4o", tokens=12, cost=0.5)
    got = store.message(mid)
    assert got.message.to_dict() == raw and (got.model, got.tokens, got.cost) == ("gpt-4o", 12, 0.5)
    assert got.message.key == mid
    store.append(cid, Message.user("q"), cost=0.25)
    assert store.conversation_cost(cid) == 0.75


def test_streaming_rows_grow_then_finish(store):
    cid = store.create_conversation()
    store.append(cid, Message.user("q"))
    row = store.append(cid, Message.assistant(""), status="streaming")
    store.update_streaming(row, Message.assistant("part"))
    assert store.message(row).message.text == "part" and store.message(row).status == "streaming"
    store.finish(row, Message.assistant("partial"), "interrupted", error="stopped")
    store.update_streaming(row, Message.assistant("late write"))  # ignored once finished
    assert store.message(row).message.text == "partial" and store.message(row).status == "interrupted"


def test_dead_owner_streaming_rows_become_interrupted(tmp_path):
    store = Store(tmp_path / "f.db")
    cid = store.create_conversation()
    row = store.append(cid, Message.assistant("half"), status="streaming")
    store.db.execute("UPDATE messages SET owner_pid = 999999999 WHERE id = ?", (row,))
    alive = store.append(cid, Message.assistant("mine"), status="streaming")
    assert store.recover_interrupted() == 1
    assert store.message(row).status == "interrupted"
    assert store.message(alive).status == "streaming"


def test_fold_chain_undo_and_edit(store):
    cid = store.create_conversation()
    ids = [store.append(cid, Message.user(str(n))) for n in range(4)]
    first = store.add_fold(
        cid,
        first_message_id=ids[0],
        last_message_id=ids[1],
        snapshot={"a": 1},
        summarizer="rules",
        trigger="auto",
        tokens_before=100,
        tokens_after=10,
    )
    second = store.add_fold(
        cid,
        first_message_id=ids[0],
        last_message_id=ids[2],
        snapshot={"a": 2},
        summarizer="rules",
        trigger="manual",
        tokens_before=50,
        tokens_after=5,
    )
    assert store.fold(second).parent_fold_id == first and store.fold(second).depth == 2
    store.edit_fold(second, "corrected")
    assert store.active_fold(cid).edited_text == "corrected"
    store.undo_fold(second)
    assert store.active_fold(cid).id == first
    store.undo_fold(first)
    assert store.active_fold(cid) is None
    assert len(store.folds(cid, include_undone=True)) == 2  # the chain stays in storage


def test_conversations_search_rename_delete(store):
    a = store.create_conversation()
    store.append(a, Message.user("about PAY-42 invoices"))
    b = store.create_conversation()
    store.append(b, Message.user("trip to Lisbon"))
    assert [c.id for c in store.conversations(search="Lisbon")] == [b]
    assert store.conversation(a).title == "about PAY-42 invoices"
    store.rename_conversation(a, "Invoices")
    assert store.conversation(a).title == "Invoices"
    store.delete_conversation(b)
    assert [c.id for c in store.conversations()] == [a]
    assert store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 1


def test_opening_and_reading_take_no_write_lock(tmp_path):
    path = tmp_path / "f.db"
    Store(path).close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    writer.execute("INSERT INTO conversations (title, created_at, updated_at) VALUES ('busy', 0, 0)")
    try:
        reader = Store(path)
        assert reader.conversations() == []  # the uncommitted row is invisible, and nothing waited for it
        reader.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_failed_commit_rolls_back_and_the_connection_stays_usable(store):
    cid = store.create_conversation()
    with pytest.raises(StorageError, match="FOREIGN KEY"), store.transaction() as db:
        db.execute("PRAGMA defer_foreign_keys = ON")  # the violation is only found by COMMIT
        db.execute(
            "INSERT INTO messages (conversation_id, role, payload, created_at, updated_at) VALUES (999, 'user', '{}', 0, 0)"
        )
    assert not store.db.in_transaction
    store.append(cid, Message.user("still works"))
    assert [m.message.text for m in store.messages(cid)] == ["still works"]


def test_a_full_database_says_so_and_keeps_working_once_space_frees(store):
    from foldchat.engine.errors import DiskFull

    cid = store.create_conversation()
    store.append(cid, Message.user("first"))
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    with pytest.raises(DiskFull, match="the disk is full"):
        store.append(cid, Message.user("x" * 200_000))
    store.db.execute("PRAGMA max_page_count = 1073741823")
    store.append(cid, Message.user("second"))
    assert [m.message.text for m in store.messages(cid)] == ["first", "second"]


def test_v3_files_gain_the_unsent_status_keeping_messages_and_pins(tmp_path):
    path = tmp_path / "v3.db"
    db = sqlite3.connect(path)
    for migration in MIGRATIONS[:3]:
        migration(db)
    db.execute("PRAGMA user_version = 3")
    db.execute("INSERT INTO conversations VALUES (1, 't', NULL, 0, 0)")
    db.execute(
        "INSERT INTO messages (id, conversation_id, role, payload, created_at, updated_at)"
        ' VALUES (1, 1, \'user\', \'{"role": "user", "content": "keep me"}\', 0, 0)'
    )
    db.execute("INSERT INTO pins VALUES (1, 0)")
    db.commit()
    db.close()
    store = Store(path)
    assert [m.message.text for m in store.messages(1)] == ["keep me"] and store.pinned_ids(1) == [1]
    store.mark_unsent(1, "too big")
    assert store.message(1).status == "unsent" and store.message(1).error == "too big"
    assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []


@pytest.mark.parametrize(("search", "found"), [("role", []), ("content", []), ("LUNCH", ["lunch"]),
                                               ("50%", ["percent"]), ("5_", []), ("image_url", [])])  # fmt: skip
def test_search_matches_what_was_said_not_the_json_around_it(store, search, found):
    for title, text in (("lunch", "where do we have lunch?"), ("percent", "about 50% done")):
        cid = store.create_conversation(title=title)
        store.append(cid, Message.user(text))
    store.append(
        cid, Message.from_dict({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]})
    )
    assert [c.title for c in store.conversations(search=search)] == found


def test_ids_beyond_sqlite_integers_are_not_found(store):
    with pytest.raises(StorageError, match="no conversation"):
        store.conversation(99999999999999999999)
    with pytest.raises(StorageError):
        store.message(99999999999999999999)


def test_full_text_search_finds_words_in_messages_with_the_matching_line(store):
    a = store.create_conversation(title="Groceries")
    store.append(a, Message.user("milk\nand the invoice for Lisbon hotels\neggs"))
    b = store.create_conversation(title="Lisbon trip")
    store.append(b, Message.user("plan"))
    hits = {h.conversation.id: h for h in store.search("lisbon HOTEL")}  # words, any case, last one unfinished
    assert list(hits) == [a]
    assert hits[a].excerpt == "and the invoice for Lisbon hotels"
    assert {h.conversation.id for h in store.search("Lisbon")} == {a, b}  # the title too
    assert {h.conversation.id for h in store.search('"Lisbon" NEAR(')} == set()  # FTS5 syntax is plain words
    assert {h.conversation.id for h in store.search('hotels" -')} == {a}


def test_the_index_follows_updates_and_deletes(store):
    cid = store.create_conversation()
    row = store.append(cid, Message.assistant(""), status="streaming")
    store.update_streaming(row, Message.assistant("partial answer about zebras"))
    assert [h.excerpt for h in store.search("zebras")] == ["partial answer about zebras"]
    store.finish(row, Message.assistant("final answer about lions"), "complete")
    assert store.search("zebras") == [] and len(store.search("lions")) == 1
    store.delete_conversation(cid)
    assert store.search("lions") == []
    assert store.db.execute("SELECT COUNT(*) FROM messages_fts").fetchone()[0] == 0


def test_v4_files_are_indexed_when_they_gain_full_text_search(tmp_path):
    path = tmp_path / "v4.db"
    db = sqlite3.connect(path)
    for migration in MIGRATIONS[:4]:
        migration(db)
    db.execute("PRAGMA user_version = 4")
    db.execute("INSERT INTO conversations VALUES (1, 'old', NULL, 0, 0)")
    db.execute(
        "INSERT INTO messages (id, conversation_id, role, payload, created_at, updated_at)"
        ' VALUES (1, 1, \'user\', \'{"role": "user", "content": [{"type": "text", "text": "the quarterly report"}]}\', 0, 0)'
    )
    db.commit()
    db.close()
    store = Store(path)
    assert [(h.conversation.id, h.excerpt) for h in store.search("quarterly")] == [(1, "the quarterly report")]
    store.close()


def test_a_long_matching_line_is_cut_around_the_match(store):
    cid = store.create_conversation()
    store.append(cid, Message.user("word " * 100 + "needle " + "word " * 100))
    (hit,) = store.search("needle")
    assert "needle" in hit.excerpt and len(hit.excerpt) <= 102


def test_text_with_lone_surrogates_is_stored_repaired_not_lost(store, tmp_path):
    """An emoji split across two streamed chunks, a JSON export's "\\ud83d" cut from its pair, input read
    with surrogateescape: UTF-8 has no form for a lone surrogate, and SQLite refused the whole row."""
    cid = store.create_conversation(title="notes \udcff")
    reply = store.append(cid, Message.assistant("x\ud83d"), status="streaming")
    store.update_streaming(reply, Message.assistant("x\ud83d" + "\ude00 and"))
    store.finish(reply, Message.assistant("x\ud83d" + "\ude00 and \ud800 more"), "complete")
    store.append(cid, Message.user("a prompt \udc80"))
    store.rename_conversation(cid, "renamed \ud83d")
    store.close()
    again = Store(tmp_path / "f.db")
    texts = [m.message.text for m in again.messages(cid)]
    assert texts == ["x\U0001f600 and \ufffd more", "a prompt \ufffd"]
    assert again.conversation(cid).title == "renamed \ufffd"
    again.close()


def test_messages_are_read_once_per_change_and_a_change_by_another_process_is_seen(store, tmp_path):
    """A turn asks for the transcript several times; each read decoded every message, a cost that grew with
    the conversation."""
    cid = store.create_conversation()
    store.append(cid, Message.user("first"))
    reads: list[str] = []
    store.db.set_trace_callback(lambda sql: reads.append(sql) if "FROM messages" in sql else None)
    first = store.messages(cid)
    assert [m.message.text for m in store.messages(cid)] == ["first"]
    assert len(reads) == 1  # the second answer came from the first read
    first.clear()  # a caller's list is its own
    assert len(store.messages(cid)) == 1

    store.append(cid, Message.assistant("ours"))  # a write through this store
    assert [m.message.text for m in store.messages(cid)] == ["first", "ours"]
    other = Store(tmp_path / "f.db")  # another connection, as another Foldchat process has
    other.append(cid, Message.user("theirs"))
    other.close()
    assert [m.message.text for m in store.messages(cid)] == ["first", "ours", "theirs"]
    assert len(reads) == 3
    assert [m.message.text for m in store.messages(store.create_conversation())] == []


def test_after_a_change_only_the_rows_that_changed_are_decoded_again(store, tmp_path, monkeypatch):
    """A turn writes three times (the prompt, the reply's row, its end) and reads after each: decoding
    every message again cost 11 ms at 1,000 messages. Any changed column, payload or not,
    by this store or another connection, is decoded again; the rest is reused."""
    import foldchat.engine.store.store as store_module

    cid = store.create_conversation()
    ids = [store.append(cid, Message.user(f"question {n}")) for n in range(3)]
    decoded: list[int] = []
    decoder = store_module.decoder

    def counting(query):  # each row the store decodes, counted
        decode = decoder(query)
        return lambda row: decoded.append(row["id"]) or decode(row)

    monkeypatch.setattr(store_module, "decoder", counting)
    before = store.messages(cid)
    assert decoded == ids  # the first read decodes all

    reply = store.append(cid, Message.assistant(""), status="streaming")
    after = store.messages(cid)
    assert decoded == [*ids, reply]  # only the new row
    assert after[:3] == before and all(a is b for a, b in zip(after, before, strict=False))

    store.finish(reply, Message.assistant("done"), "complete", tokens=3)  # the payload and columns change
    store.supersede([ids[0]], reply)  # a column only, the payload unchanged
    other = Store(tmp_path / "f.db")  # another process rewrites a payload behind our back
    other.db.execute("UPDATE messages SET payload = ? WHERE id = ?", ('{"role": "user", "content": "edited"}', ids[1]))
    other.close()
    latest = store.messages(cid)
    assert sorted(decoded[4:]) == sorted([ids[0], ids[1], reply])
    assert [m.message.text for m in latest] == ["question 0", "edited", "question 2", "done"]
    assert latest[0].superseded_by == reply and latest[3].status == "complete" and latest[3].tokens == 3
    assert latest[2] is before[2]  # untouched, reused
