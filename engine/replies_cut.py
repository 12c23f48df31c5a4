"""The mark of a reply the output cap ended: stored with the reply (in its `error` column, its status
staying `complete`), shown under it after a restart, and carried by `show` and the exports."""

from __future__ import annotations

CUT_PREFIX = "cut at "


def cut_mark(tokens: int | None) -> str:
    return f"{CUT_PREFIX}{tokens if tokens else '?'} tokens"


def is_cut_mark(error: str | None) -> bool:
    return bool(error) and str(error).startswith(CUT_PREFIX)
