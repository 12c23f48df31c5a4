"""How `foldchat list` lays its rows out: at a terminal, under a header and cut to the terminal's width
(a title that wrapped went on at the left edge, under the id column); into a pipe or a file, as before,
whole rows and no header, for the scripts that read them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

MODEL_WIDTH = 24  # at most: a longer model name is cut
EXCERPT_INDENT = "       › "


class Row(NamedTuple):
    id: int
    when: str
    messages: int
    model: str
    title: str
    excerpt: str = ""


def lines(rows: Sequence[Row], width: int | None) -> list[str]:
    """The lines to print; `width`: the terminal's columns (a header, the model column as wide as its
    longest name, each line cut to fit), None off a terminal (the rows as they always were)."""
    if width is None:
        return [
            line
            for r in rows
            for line in (f"{r.id:>5}  {r.when}  {r.messages:>5} msgs  {r.model:<{MODEL_WIDTH}}  {r.title}",
                         EXCERPT_INDENT + r.excerpt)
            if line != EXCERPT_INDENT
        ]  # fmt: skip
    model_width = min(max([len("model"), *(len(r.model) for r in rows)]), MODEL_WIDTH)
    out = [_cut(f"{'id':>5}  {'updated':<16}  {'msgs':>5}  {'model':<{model_width}}  title", width)]
    for r in rows:
        model = _fit(r.model, model_width)
        out.append(_cut(f"{r.id:>5}  {r.when:<16}  {r.messages:>5}  {model:<{model_width}}  {r.title}", width))
        if r.excerpt:
            out.append(_cut(EXCERPT_INDENT + r.excerpt, width))
    return out


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cut(line: str, width: int | None) -> str:
    return line if width is None or len(line) <= width else line[: max(width - 1, 0)] + "…"
