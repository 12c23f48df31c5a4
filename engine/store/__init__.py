"""SQLite storage (docs/design.md §9): `Store` and the records it hands out.

- `store`: the `Store` class (conversations, messages, folds, pins), one connection shared by threads;
- `connection`: opening the file (private, WAL, busy timeout) and one-line errors;
- `migrations`: the schema, as named migrations applied in order and recorded;
- `records`: `Conversation`, `StoredMessage`, `StoredFold`, `SearchHit`;
- `search`: full-text search over what was said.
"""

from .connection import BUSY_TIMEOUT_SECONDS
from .migrations import MIGRATIONS
from .records import Conversation, SearchHit, Status, StoredFold, StoredMessage
from .search import EXCERPT_CHARS, fts_query, matching_line
from .store import SQLITE_MAX_INTEGER, Store

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "EXCERPT_CHARS",
    "MIGRATIONS",
    "SQLITE_MAX_INTEGER",
    "Conversation",
    "SearchHit",
    "Status",
    "Store",
    "StoredFold",
    "StoredMessage",
    "fts_query",
    "matching_line",
]
