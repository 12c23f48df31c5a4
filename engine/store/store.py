"""The store: conversations, the append-only transcript, and the fold chain, in one SQLite file (docs/design.md §9).

- WAL, foreign keys, a busy timeout on every connection so two Foldchat processes can share one file.
  Readers never take the write lock: opening an up-to-date file only reads, and a write transaction
  (`BEGIN IMMEDIATE`) is started only to write. A failed COMMIT is rolled back, so the connection
  stays usable, and reported as a `StorageError` (`DiskFull` when the disk is full).
- Schema: named migrations, applied in order and recorded (`migrations`).
- Private: the file, its -wal and -shm are 0600 whatever the umask (tightened on open).
- Messages keep their full OpenAI dict (`payload`, JSON) plus status, model, tokens and cost. Only a
  reply that is still `streaming` is ever updated (its text grows, then its status is set once).
- A user message refused before it was sent (too big for the window) is kept as `unsent`, with the
  reason, and left out of every context.
- A `streaming` row whose owner process is gone is marked `interrupted` when any process opens the DB.
- Folds form a chain (`parent_fold_id`); undo marks a fold undone instead of deleting it, an edit stores
  the corrected snapshot text beside the original.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StorageError
from .connection import connect, pid_alive, storage_error, tighten
from .migrations import migrate
from .records import (
    Conversation,
    SearchHit,
    Status,
    StoredFold,
    StoredMessage,
    conversation_of,
    decoder,
    stored_fold_of,
    title_of,
)
from .search import CONVERSATION_ROWS, conversation_hits

if TYPE_CHECKING:  # messages, attachments are loaded where one is read or written: `list` needs neither (~15 ms)
    from ..messages import Message

SQLITE_MAX_INTEGER = 2**63 - 1


_Decoded = dict[int, tuple[tuple[Any, ...], StoredMessage]]
"""Stored messages by id, in order, each with the database row it was decoded from."""


class Store:
    """One connection to the Foldchat database, shared by this process's threads (behind a lock)
    and safe beside other processes (WAL + busy timeout)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._writes = 0
        """Transactions begun or ended through this store: a cached read is current while this is unchanged."""
        self._last_read: tuple[tuple[int, tuple[int, int]], _Decoded] | None = None
        """The last `messages` read: (conversation, when), and its messages by id in order, each with the
        row it was decoded from."""
        self.db = connect(self.path)
        try:
            migrate(self.db, self.path, self.transaction)
            self.recover_interrupted()
            tighten(self.path)
        except (sqlite3.Error, StorageError) as error:
            self.db.close()
            if isinstance(error, StorageError):
                raise
            raise storage_error(f"cannot open the database {self.path}", error) from None

    @property
    def schema_version(self) -> int:
        return int(self.query("PRAGMA user_version")[0][0])

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; on any failure (COMMIT included) it is rolled back and reported."""
        with self._lock:
            self._writes += 1  # before and after: a read between the two is never taken for a current one
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise storage_error(f"cannot write to {self.path}", error) from None
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException as error:
                self._rollback()
                if isinstance(error, sqlite3.Error):
                    raise storage_error(f"cannot write to {self.path}", error) from None
                raise
            finally:
                self._writes += 1

    def _rollback(self) -> None:
        # a failed COMMIT can leave the transaction open; without this every later BEGIN would fail
        if self.db.in_transaction:
            with suppress(sqlite3.Error):  # SQLite may have rolled back on its own
                self.db.execute("ROLLBACK")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self.db.execute(sql, params).fetchall()
            except sqlite3.Error as error:
                raise storage_error(f"cannot read {self.path}", error) from None
            except OverflowError:  # an id beyond SQLite's 64-bit integers matches nothing
                raise StorageError(f"no such record in {self.path}: a number is out of range") from None

    def close(self) -> None:
        # under the lock: closing while a worker thread is inside `execute` crashes the interpreter;
        # a query after this raises sqlite3.ProgrammingError, reported as a StorageError
        with self._lock:
            self.db.close()

    # -- conversations ----------------------------------------------------------------------------
    def create_conversation(self, title: str = "", model: str | None = None) -> int:
        now = time.time()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO conversations (title, model, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (title, model, now, now),
            )
        return int(cursor.lastrowid or 0)

    def conversation(self, conversation_id: int) -> Conversation:
        if not 0 < conversation_id <= SQLITE_MAX_INTEGER:
            raise StorageError(f"no conversation {conversation_id} (foldchat list shows them)")
        rows = self.query(f"{CONVERSATION_ROWS} WHERE c.id = ?", (conversation_id,))
        if not rows:
            raise StorageError(f"no conversation {conversation_id} (foldchat list shows them)")
        return conversation_of(rows[0])

    def conversations(self, search: str | None = None, limit: int = 200) -> list[Conversation]:
        if search:
            return [hit.conversation for hit in self.search(search, limit)]
        query = f"{CONVERSATION_ROWS} ORDER BY c.updated_at DESC, c.id DESC LIMIT ?"
        return [conversation_of(row) for row in self.query(query, (limit,))]

    def search(self, text: str, limit: int = 200) -> list[SearchHit]:
        """Conversations whose title contains `text` or whose messages hold its words (full-text, FTS5),
        most recent first, each with the line of its best-matching message."""
        return conversation_hits(self.query, self.conversation, text, limit)

    def recent_models(self, limit: int = 8) -> list[str]:
        """The models of the most recently used conversations, newest first, each once."""
        rows = self.query(
            "SELECT model FROM conversations WHERE model IS NOT NULL AND model != ''"
            " GROUP BY model ORDER BY MAX(updated_at) DESC LIMIT ?",
            (limit,),
        )
        return [str(row["model"]) for row in rows]

    def latest_conversation(self) -> Conversation | None:
        return next(iter(self.conversations(limit=1)), None)

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id))

    def set_conversation_model(self, conversation_id: int, model: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE conversations SET model = ? WHERE id = ?", (model, conversation_id))

    def delete_conversation(self, conversation_id: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM folds WHERE conversation_id = ?", (conversation_id,))
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            from .attachment_rows import forget_unreferenced
            forget_unreferenced(db)  # a file attached only here goes with it

    # -- messages ---------------------------------------------------------------------------------
    def append(
        self,
        conversation_id: int,
        message: Message,
        *,
        status: Status = "complete",
        model: str | None = None,
        tokens: int | None = None,
        cost: float = 0.0,
        error: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> int:
        """Commit one message now (before any request that depends on it is sent).

        `payload` stores a message exactly as it came (an import); by default, `message.to_dict()`.
        """
        with self.transaction() as db:
            return _insert_message(db, conversation_id, message, status, model, tokens, cost, error, payload)

    def add_conversation(
        self, title: str, messages: Sequence[tuple[Message, dict[str, Any]]], model: str | None = None
    ) -> int:
        """Create a conversation holding `messages` (each with the payload stored as given), all or nothing:
        a failure part-way leaves no trace, so a retry cannot duplicate anything."""
        now = time.time()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO conversations (title, model, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (title, model, now, now),
            )
            conversation_id = int(cursor.lastrowid or 0)
            for message, payload in messages:
                _insert_message(db, conversation_id, message, "complete", None, None, 0.0, None, payload)
        return conversation_id

    def start_conversation(self, message: Message, model: str | None = None) -> tuple[int, int]:
        """A new conversation and its first message, committed together: (conversation id, message id).
        A failed write (a full disk) leaves no empty conversation behind to become the latest."""
        now = time.time()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO conversations (title, model, created_at, updated_at) VALUES ('', ?, ?, ?)",
                (model, now, now),
            )
            conversation_id = int(cursor.lastrowid or 0)
            message_id = _insert_message(db, conversation_id, message, "complete", None, None, 0.0, None, None)
        return conversation_id, message_id

    def mark_unsent(self, message_id: int, reason: str) -> None:
        """A user message that was refused before sending: kept, shown with `reason`, never sent."""
        with self.transaction() as db:
            db.execute("UPDATE messages SET status = 'unsent', error = ?, updated_at = ? WHERE id = ?",
                       (reason, time.time(), message_id))  # fmt: skip

    def update_streaming(self, message_id: int, message: Message) -> None:
        """Save the reply streamed so far (called every ~0.3 s while streaming)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE messages SET payload = ?, updated_at = ? WHERE id = ? AND status = 'streaming'",
                (json.dumps(message.to_dict(), ensure_ascii=False), time.time(), message_id),
            )

    def finish(
        self,
        message_id: int,
        message: Message,
        status: Status,
        *,
        tokens: int | None = None,
        cost: float = 0.0,
        error: str | None = None,
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE messages SET payload = ?, status = ?, tokens = ?, cost = ?, error = ?, owner_pid = NULL,"
                " updated_at = ? WHERE id = ?",
                (
                    json.dumps(message.to_dict(), ensure_ascii=False),
                    status,
                    tokens,
                    cost,
                    error,
                    time.time(),
                    message_id,
                ),
            )

    def resend(self, conversation_id: int, message_id: int, message: Message) -> int:
        """Append `message` (an edited prompt) and mark every live non-system message from `message_id`
        on as superseded by it, in one transaction; returns the new message's id. Nothing is deleted."""
        with self.transaction() as db:
            new_id = _insert_message(db, conversation_id, message, "complete", None, None, 0.0, None, None)
            db.execute(
                "UPDATE messages SET superseded_by = ? WHERE conversation_id = ? AND id >= ? AND id < ?"
                " AND superseded_by IS NULL AND role != 'system'",
                (new_id, conversation_id, message_id, new_id),
            )
        return new_id

    def supersede(self, message_ids: Sequence[int], by: int) -> None:
        with self.transaction() as db:
            db.executemany("UPDATE messages SET superseded_by = ? WHERE id = ?", [(by, i) for i in message_ids])

    def recover_interrupted(self) -> int:
        """Mark replies left `streaming` by a process that is gone as `interrupted`; returns how many."""
        rows = self.query("SELECT id, owner_pid FROM messages WHERE status = 'streaming'")
        dead = [row["id"] for row in rows if not pid_alive(row["owner_pid"])]
        if dead:
            with self.transaction() as db:
                db.executemany(
                    "UPDATE messages SET status = 'interrupted', owner_pid = NULL WHERE id = ? AND status = 'streaming'",
                    [(i,) for i in dead],
                )
        return len(dead)

    def messages(self, conversation_id: int) -> list[StoredMessage]:
        """The conversation's messages in order. Read once per change of the database: a turn asks for them
        several times (the gauge, the fold check, the context to send). A change is a write through this
        store or a commit by any other connection (SQLite's `data_version`: another process).

        After a change, only the rows that changed are decoded again: decoding every message cost 2 ms at
        100 messages and 11 ms at 1,000, after each of a turn's writes. A row is reused only when
        every column, payload included, is what it was decoded from."""
        with self._lock:
            read = (conversation_id, (self._writes, self.query("PRAGMA data_version")[0][0]))
            last = self._last_read
            if last is None or last[0] != read:
                rows = self.query("SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,))
                known = last[1] if last is not None and last[0][0] == conversation_id else {}
                decoded: _Decoded = {}
                decode = decoder(self.query)
                for row in rows:
                    hit, values = known.get(row["id"]), tuple(row)
                    decoded[row["id"]] = hit if hit is not None and hit[0] == values else (values, decode(row))
                last = self._last_read = (read, decoded)
            return [stored for _, stored in last[1].values()]

    def conversation_cost(self, conversation_id: int) -> float:
        """Money spent on a conversation so far (summed in SQL: no payload is read)."""
        query = "SELECT COALESCE(SUM(cost), 0) FROM messages WHERE conversation_id = ?"
        return float(self.query(query, (conversation_id,))[0][0])

    def message(self, message_id: int) -> StoredMessage:
        rows = self.query("SELECT * FROM messages WHERE id = ?", (message_id,))
        if not rows:
            raise StorageError(f"no message {message_id}")
        return decoder(self.query)(rows[0])

    # -- folds ------------------------------------------------------------------------------------
    def add_fold(
        self,
        conversation_id: int,
        *,
        first_message_id: int,
        last_message_id: int,
        snapshot: dict[str, Any],
        summarizer: str,
        trigger: str,
        tokens_before: int,
        tokens_after: int,
    ) -> int:
        parent = self.active_fold(conversation_id)
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO folds (conversation_id, parent_fold_id, depth, first_message_id, last_message_id,"
                " snapshot, summarizer, trigger, tokens_before, tokens_after, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id, parent.id if parent else None, (parent.depth + 1) if parent else 1,
                    first_message_id, last_message_id, json.dumps(snapshot, ensure_ascii=False), summarizer,
                    trigger, tokens_before, tokens_after, time.time(),
                ),
            )  # fmt: skip
        return int(cursor.lastrowid or 0)

    def folds(self, conversation_id: int, include_undone: bool = False) -> list[StoredFold]:
        """The chain, oldest first; a fold whose snapshot cannot be read (`damaged`) counts as undone."""
        query = "SELECT * FROM folds WHERE conversation_id = ?" + ("" if include_undone else " AND undone_at IS NULL")
        folds = [stored_fold_of(row) for row in self.query(query + " ORDER BY id", (conversation_id,))]
        return folds if include_undone else [f for f in folds if not f.damaged]

    def active_fold(self, conversation_id: int) -> StoredFold | None:
        return next(reversed(self.folds(conversation_id)), None)

    def fold(self, fold_id: int) -> StoredFold:
        rows = self.query("SELECT * FROM folds WHERE id = ?", (fold_id,))
        if not rows:
            raise StorageError(f"no fold {fold_id}")
        return stored_fold_of(rows[0])

    def undo_fold(self, fold_id: int) -> None:
        """Undo a fold (and any fold built on top of it); the records stay, marked undone."""
        with self.transaction() as db:
            db.execute(
                "UPDATE folds SET undone_at = ? WHERE undone_at IS NULL AND id >= ? AND conversation_id ="
                " (SELECT conversation_id FROM folds WHERE id = ?)",
                (time.time(), fold_id, fold_id),
            )

    def edit_fold(self, fold_id: int, text: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE folds SET edited_text = ? WHERE id = ?", (text, fold_id))

    # -- pins -------------------------------------------------------------------------------------
    def pin(self, message_id: int, pinned: bool = True) -> None:
        with self.transaction() as db:
            if pinned:
                db.execute("INSERT OR IGNORE INTO pins VALUES (?, ?)", (message_id, time.time()))
            else:
                db.execute("DELETE FROM pins WHERE message_id = ?", (message_id,))

    def drop_rule(self, conversation_id: int, rule: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO dropped_rules VALUES (?, ?, ?)", (conversation_id, rule, time.time()))

    def dropped_rules(self, conversation_id: int) -> list[str]:
        rows = self.query(
            "SELECT rule FROM dropped_rules WHERE conversation_id = ? ORDER BY created_at", (conversation_id,)
        )
        return [str(row[0]) for row in rows]

    def pinned_ids(self, conversation_id: int) -> list[int]:
        rows = self.query(
            "SELECT p.message_id FROM pins p JOIN messages m ON m.id = p.message_id WHERE m.conversation_id = ?"
            " ORDER BY p.message_id",
            (conversation_id,),
        )
        return [int(row[0]) for row in rows]


def _insert_message(
    db: sqlite3.Connection,
    conversation_id: int,
    message: Message,
    status: Status,
    model: str | None,
    tokens: int | None,
    cost: float,
    error: str | None,
    payload: dict[str, Any] | None,
) -> int:
    from ..attachments import said
    from .attachment_rows import stored_once

    now = time.time()
    owner = os.getpid() if status == "streaming" else None
    cursor = db.execute(
        "INSERT INTO messages (conversation_id, role, payload, status, error, model, tokens, cost, owner_pid,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            conversation_id, message.role, json.dumps(stored_once(db, payload or message.to_dict()), ensure_ascii=False),
            status,
            error, model, tokens, cost, owner, now, now,
        ),
    )  # fmt: skip
    db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
    if message.role == "user":
        db.execute(
            "UPDATE conversations SET title = ? WHERE id = ? AND title = ''", (title_of(said(message)), conversation_id)
        )
    return int(cursor.lastrowid or 0)
