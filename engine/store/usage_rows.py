"""What each reply's request used and cost, as its provider reported it (table `reply_usage`): the cost
the faces show, what prompt caching saved, and the breakdown `/context` and `foldchat show` give."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, NamedTuple

from .store import Store

if TYPE_CHECKING:  # built only by `usages`: a total (`foldchat list`) loads no provider module
    from ..providers.events import UsageReport

_COLUMNS = "prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens, reasoning_tokens, cost, uncached_cost"


class UsageTotals(NamedTuple):
    """A conversation's replies summed: input tokens, how many were cache reads, and the cost with and
    without the cache (replies whose provider reported no usage count at their stored cost in both)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    uncached_cost: float = 0.0
    summarizer_cost: float = 0.0
    """Of `cost`, what the summarizer's calls cost (folds and fold previews)."""

    @property
    def cached_share(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def saved(self) -> float:
        return max(0.0, self.uncached_cost - self.cost)


def set_usage(store: Store, message_id: int, usage: UsageReport) -> None:
    with store.transaction() as db:
        db.execute(
            f"INSERT OR REPLACE INTO reply_usage (message_id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (message_id, usage.prompt_tokens, usage.cached_tokens, usage.cache_write_tokens, usage.completion_tokens,
             usage.reasoning_tokens, usage.cost, usage.full_cost),
        )  # fmt: skip


def usages(store: Store, conversation_id: int) -> dict[int, UsageReport]:
    """Message id -> what its request used, for a conversation's replies that reported usage."""
    rows = store.query(
        f"SELECT u.message_id, {', '.join('u.' + c.strip() for c in _COLUMNS.split(','))} FROM reply_usage u"
        " JOIN messages m ON m.id = u.message_id WHERE m.conversation_id = ?",
        (conversation_id,),
    )
    if not rows:  # an imported conversation's: `foldchat show` then loads no provider module
        return {}
    from ..providers.events import UsageReport

    return {int(r[0]): UsageReport(int(r[1]), int(r[4]), float(r[6]), int(r[2]), int(r[3]), int(r[5]), float(r[7]))
            for r in rows}  # fmt: skip


def totals(store: Store, conversation_id: int | None = None) -> UsageTotals:
    """The usage of one conversation's replies (or of every conversation's)."""
    where, args = ("WHERE m.conversation_id = ?", (conversation_id,)) if conversation_id is not None else ("", ())
    rows = store.query(
        "SELECT COALESCE(SUM(u.prompt_tokens), 0), COALESCE(SUM(u.cached_tokens), 0), COALESCE(SUM(m.cost), 0),"
        " COALESCE(SUM(COALESCE(u.uncached_cost, m.cost)), 0) FROM messages m"
        f" LEFT JOIN reply_usage u ON u.message_id = m.id {where}",
        args,
    )
    prompt, cached, cost, uncached = rows[0]
    folds = store.query(
        "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(cached_tokens), 0), COALESCE(SUM(cost), 0),"
        f" COALESCE(SUM(uncached_cost), 0) FROM summarizer_usage {where.replace('m.', '')}",
        args,
    )[0]
    return UsageTotals(int(prompt) + int(folds[0]), int(cached) + int(folds[1]), float(cost) + float(folds[2]),
                       float(uncached) + float(folds[3]), float(folds[2]))  # fmt: skip


def add_summarizer_usage(store: Store, conversation_id: int, spent: list[UsageReport]) -> None:
    """What a fold's summarizer calls cost, one row per call."""
    if not spent:
        return
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO summarizer_usage (conversation_id, prompt_tokens, cached_tokens, completion_tokens, cost,"
            " uncached_cost, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(conversation_id, u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.cost, u.full_cost, time.time())
             for u in spent],
        )  # fmt: skip
