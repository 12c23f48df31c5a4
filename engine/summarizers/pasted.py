"""Telling what the user wrote from what the user pasted (a README, a man page, code, a log).

Constraints come from the user's own sentences only: "Without argument, list all breaks." in a pasted
man page is documentation, not a rule for the assistant. A message is cut into blocks at blank lines
(a fenced block is one block); blocks that look pasted (fenced, headings, man-page sections, option
lines, indented code, long runs of lines) mark a pasted region that runs from the first such block to
the last, plus the blocks after it until one reads like the user talking again. Everything before and
after the region is the user's own text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..facts import identifiers

LONG_BLOCK_LINES = 12  # a user's own bullet list of rules can be long; it is never taken for a paste
PASTE_IDENTIFIERS = 20

_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_HEADING = re.compile(r"^(?:#{1,6} \S|[A-Z][A-Z ]{2,40}$|={3,}$|-{3,}$)", re.M)
_OPTION_LINE = re.compile(r"^[ \t]+-{1,2}\w", re.M)
_INDENTED = re.compile(r"^(?: {4}|\t)\S", re.M)
_TALKING = re.compile(
    r"\b(?:I|I'm|I've|me|my|we|our|you|your|please|thanks|thank you|can you|could you)\b|\?\s*$", re.I
)


@dataclass(frozen=True)
class Paste:
    """A pasted region, described in one line: what it was, its size, its identifiers."""

    kind: str
    title: str
    chars: int
    lines: int
    found: tuple[str, ...]

    def describe(self) -> str:
        title = f" “{self.title}”" if self.title else ""
        ids = f"; identifiers: {', '.join(self.found)}" if self.found else ""
        return f"pasted {self.kind}{title} ({self.lines} lines, {self.chars:,} chars){ids}"


def _blocks(text: str) -> list[str]:
    """Blank-line separated blocks; a fenced code block stays whole even if it holds blank lines."""
    out: list[str] = []
    fenced = False
    for block in _BLOCK_BREAK.split(text):
        if fenced:
            out[-1] += "\n\n" + block
        else:
            out.append(block)
        if block.count("```") % 2 == 1:
            fenced = not fenced
    return [b for b in out if b.strip()]


_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s", re.M)


def _looks_pasted(block: str) -> bool:
    stripped = block.strip()
    lines = stripped.count("\n") + 1
    bullets = len(_BULLET.findall(stripped))
    return (
        stripped.startswith("```")
        or (lines >= LONG_BLOCK_LINES and bullets * 2 < lines)
        or _HEADING.search(stripped) is not None
        or _OPTION_LINE.search(block) is not None
        or len(_INDENTED.findall(block)) >= 2
    )


def _kind(region: str) -> tuple[str, str]:
    if re.search(r"^(?:NAME|SYNOPSIS|DESCRIPTION|OPTIONS)$", region, re.M):
        name = re.search(r"^NAME\n\s+(\S+)", region, re.M)
        return "man page", name.group(1) if name else ""
    heading = re.search(r"^#{1,6} (.{1,80})$", region, re.M)
    if heading:
        return "document", heading.group(1).strip()
    fence = re.match(r"\s*```(\w*)", region)
    if fence:
        return f"{fence.group(1)} code".strip() if fence.group(1) else "code", ""
    if re.search(r"Traceback|^\s*at \S+\(|ERROR|FATAL", region[:4000], re.M):
        return "log", ""
    return "text", ""


def split_pasted(text: str) -> tuple[str, list[Paste]]:
    """The user's own text (pasted regions removed) and a description of each pasted region."""
    blocks = _blocks(text)
    marks = [i for i, block in enumerate(blocks) if _looks_pasted(block)]
    if not marks:
        return text, []
    start, end = marks[0], marks[-1]
    is_document = any(_HEADING.search(blocks[i].strip()) for i in marks)
    # a document's last section runs on past its heading; code and logs end where they end
    while is_document and end + 1 < len(blocks) and not _TALKING.search(blocks[end + 1]):
        end += 1
    region = "\n\n".join(blocks[start : end + 1])
    kind, title = _kind(region)
    paste = Paste(
        kind,
        title,
        len(region),
        region.count("\n") + 1,
        tuple(identifiers(region, limit=PASTE_IDENTIFIERS)),
    )
    own = "\n\n".join([*blocks[:start], *blocks[end + 1 :]])
    return own, [paste]
