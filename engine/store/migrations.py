"""The database schema, as named migrations applied in order (each once, forward only).

A database records how far it got twice: `PRAGMA user_version` (the number applied, which an older
Foldchat reads to refuse a newer file) and, from `recorded_migrations` on, one row per migration in
`_migrations` (its name and when it ran), so a reader of the file sees its history. A new migration is
a function added at the end with `@migration`; a shipped one is never edited.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from ..errors import StorageError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


def migration(function: Migration) -> Migration:
    """Register `function` as the next migration (by its place in this file)."""
    MIGRATIONS.append(function)
    return function


def migrate(db: sqlite3.Connection, path: Path, transaction: Callable[[], AbstractContextManager[object]]) -> None:
    """Apply the migrations `db` lacks, all in one write transaction; an up-to-date file is only read."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise StorageError(f"{path} was written by a newer Foldchat (schema {version}); upgrade Foldchat")
    if version == len(MIGRATIONS):
        return
    # table rebuilds must not cascade deletes; this pragma is a no-op inside a transaction
    db.execute("PRAGMA foreign_keys=OFF")
    try:
        with transaction():
            version = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
            for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
                step(db)
                if number > MIGRATIONS.index(recorded_migrations) + 1:  # the table exists from there on
                    db.execute("INSERT INTO _migrations VALUES (?, ?)", (step.__name__, time.time()))
                db.execute(f"PRAGMA user_version = {number}")
            if db.execute("PRAGMA foreign_key_check").fetchone() is not None:
                raise StorageError(f"{path}: the schema migration broke a reference; nothing was changed")
    finally:
        db.execute("PRAGMA foreign_keys=ON")


def applied(db: sqlite3.Connection) -> list[str]:
    """The names of the migrations `db` records, in the order they ran."""
    return [str(row[0]) for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]


def _run_script(db: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the migration's transaction halfway; run statements one by one
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


@migration
def conversations_messages_folds(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            model TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'streaming', 'interrupted', 'error')),
            error TEXT,
            model TEXT,
            tokens INTEGER,
            cost REAL NOT NULL DEFAULT 0,
            owner_pid INTEGER,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
        CREATE TABLE folds (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            parent_fold_id INTEGER REFERENCES folds(id),
            depth INTEGER NOT NULL,
            first_message_id INTEGER NOT NULL,
            last_message_id INTEGER NOT NULL,
            snapshot TEXT NOT NULL,
            edited_text TEXT,
            summarizer TEXT NOT NULL,
            trigger TEXT NOT NULL,
            tokens_before INTEGER NOT NULL,
            tokens_after INTEGER NOT NULL,
            created_at REAL NOT NULL,
            undone_at REAL
        );
        CREATE INDEX folds_by_conversation ON folds(conversation_id, id);
        """,
    )


@migration
def pins(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE pins (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            created_at REAL NOT NULL
        );
        """,
    )


@migration
def messages_superseded_by(db: sqlite3.Connection) -> None:
    # a regenerated reply replaces the old one in the context; the old one stays in the transcript
    db.execute("ALTER TABLE messages ADD COLUMN superseded_by INTEGER REFERENCES messages(id)")


@migration
def messages_unsent_status(db: sqlite3.Connection) -> None:
    # the status CHECK gains 'unsent'; SQLite cannot alter a CHECK, so the table is rebuilt
    # (`migrate` turns foreign keys off around it, so dropping the old table cascades nothing)
    _run_script(
        db,
        """
        CREATE TABLE messages_v4 (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'streaming', 'interrupted', 'error', 'unsent')),
            error TEXT,
            model TEXT,
            tokens INTEGER,
            cost REAL NOT NULL DEFAULT 0,
            owner_pid INTEGER,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            superseded_by INTEGER REFERENCES messages(id)
        );
        INSERT INTO messages_v4 (id, conversation_id, role, payload, status, error, model, tokens, cost, owner_pid,
            created_at, updated_at, superseded_by)
            SELECT id, conversation_id, role, payload, status, error, model, tokens, cost, owner_pid, created_at,
            updated_at, superseded_by FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_v4 RENAME TO messages;
        CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
        """,
    )


# the words of a message, not its JSON: "role" or "content" must not match everything
_MESSAGE_WORDS = (
    "(SELECT group_concat(t.value, char(10)) FROM json_tree({row}.payload) t"
    " WHERE t.type = 'text' AND t.key IN ('content', 'text'))"
)


@migration
def messages_full_text_search(db: sqlite3.Connection) -> None:
    # full-text search over what was said; triggers keep the index in step with every insert, update
    # (a streaming reply grows) and delete (a conversation deleted cascades to its messages)
    new_row = (
        "INSERT INTO messages_fts (rowid, conversation_id, body)"
        f" VALUES (new.id, new.conversation_id, COALESCE({_MESSAGE_WORDS.format(row='new')}, ''))"
    )
    words = _MESSAGE_WORDS.format(row="m")
    for statement in (  # one by one: the triggers' bodies hold semicolons
        "CREATE VIRTUAL TABLE messages_fts USING fts5(conversation_id UNINDEXED, body, tokenize = 'unicode61')",
        "INSERT INTO messages_fts (rowid, conversation_id, body)"
        f" SELECT m.id, m.conversation_id, COALESCE({words}, '') FROM messages m",
        f"CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN {new_row}; END",
        "CREATE TRIGGER messages_fts_update AFTER UPDATE OF payload ON messages BEGIN"
        f" DELETE FROM messages_fts WHERE rowid = old.id; {new_row}; END",
        "CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN"
        " DELETE FROM messages_fts WHERE rowid = old.id; END",
    ):
        db.execute(statement)


@migration
def dropped_rules(db: sqlite3.Connection) -> None:
    # a standing rule the user dropped stays dropped: a re-fold from the originals would find it again
    _run_script(
        db,
        """
        CREATE TABLE dropped_rules (
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            rule TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (conversation_id, rule)
        );
        """,
    )


@migration
def recorded_migrations(db: sqlite3.Connection) -> None:
    # from here on every migration leaves its name; the ones before are recorded as found applied
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    now = time.time()
    for step in MIGRATIONS[: MIGRATIONS.index(recorded_migrations) + 1]:
        db.execute("INSERT INTO _migrations VALUES (?, ?)", (step.__name__, now))


@migration
def attachments(db: sqlite3.Connection) -> None:
    # an attached file's content, once, by its SHA-256: messages keep its mark and an empty text
    db.execute(
        "CREATE TABLE attachments (sha256 TEXT PRIMARY KEY, content TEXT NOT NULL, bytes INTEGER NOT NULL,"
        " created_at REAL NOT NULL)"
    )


@migration
def recalls(db: sqlite3.Connection) -> None:
    # what automatic recall put into the request that answered a user message (shown after a restart)
    db.execute(
        "CREATE TABLE recalls (message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,"
        " payload TEXT NOT NULL, created_at REAL NOT NULL)"
    )


# an attached text's words, which its message's payload leaves out (the file is stored once, in `attachments`);
# nested CASEs: SQLite does not promise the order of an AND's terms, and json_extract fails on what is no object
_ATTACHED_WORDS = (
    "(SELECT group_concat(a.content, char(10)) FROM json_each(CASE WHEN json_type({row}.payload, '$.content') ="
    " 'array' THEN {row}.payload END, '$.content') part JOIN attachments a ON a.sha256 = CASE WHEN part.type ="
    " 'object' THEN CASE WHEN json_extract(part.value, '$.type') = 'text' THEN"
    " json_extract(part.value, '$.foldchat_attachment.sha256') END END)"
)


def _searchable(row: str) -> str:
    """What search finds in a message: its words, then the words of the texts attached to it."""
    return (
        f"COALESCE({_MESSAGE_WORDS.format(row=row)}, '') || COALESCE(char(10) || {_ATTACHED_WORDS.format(row=row)}, '')"
    )


@migration
def attachments_in_full_text_search(db: sqlite3.Connection) -> None:
    # `list --search` and the history screen find what an attached file says, as recall does
    new_row = f"INSERT INTO messages_fts (rowid, conversation_id, body) VALUES (new.id, new.conversation_id, {_searchable('new')})"
    for statement in (
        "DROP TRIGGER messages_fts_insert",
        "DROP TRIGGER messages_fts_update",
        f"CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN {new_row}; END",
        "CREATE TRIGGER messages_fts_update AFTER UPDATE OF payload ON messages BEGIN"
        f" DELETE FROM messages_fts WHERE rowid = old.id; {new_row}; END",
        "DELETE FROM messages_fts",
        f"INSERT INTO messages_fts (rowid, conversation_id, body) SELECT m.id, m.conversation_id, {_searchable('m')}"
        " FROM messages m",
    ):
        db.execute(statement)


@migration
def reply_usage(db: sqlite3.Connection) -> None:
    # what the provider said a reply's request used (cached reads, cache writes, reasoning) and its price
    # with and without the cache: the cost shown, and what caching saved, survive a restart
    db.execute(
        "CREATE TABLE reply_usage (message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,"
        " prompt_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,"
        " completion_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL, cost REAL NOT NULL,"
        " uncached_cost REAL NOT NULL)"
    )


@migration
def summarizer_usage(db: sqlite3.Connection) -> None:
    # what each summarizer call of a fold (or a fold preview) cost: paid whether or not the fold was kept
    db.execute(
        "CREATE TABLE summarizer_usage (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL"
        " REFERENCES conversations(id) ON DELETE CASCADE, prompt_tokens INTEGER NOT NULL,"
        " cached_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cost REAL NOT NULL,"
        " uncached_cost REAL NOT NULL, created_at REAL NOT NULL)"
    )
