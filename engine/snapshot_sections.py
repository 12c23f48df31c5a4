"""What a snapshot section is to the parts that read it (docs/design.md §6-7).

A section is written once: its field on `snapshot.Snapshot` names it and says what it holds (its
description), and the `Section` annotated on that field says who fills, checks and cuts it. Everything
that treats sections alike reads that one table (`snapshot.SECTION_ROLES`, in the rendering's order): the
LLM summarizer's key list and JSON schema (`summarizers/llm.py`), the check (`fold/check.py`), the fit's
cut order (`fold/fit.py`). The rules summarizer fills every section (`summarizers/rules.py`);
tests/engine/test_snapshot_sections.py holds each of them to the table, so a section added in one place
only fails there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """One section's roles beyond holding its items."""

    rules: str
    """What the rules summarizer fills it from (it fills every section)."""
    required: bool = False
    """The LLM summarizer's JSON schema requires the key."""
    checked: bool = False
    """`fold/check.py` puts back into it the values of the folded messages the snapshot lost."""
    statements: bool = False
    """`fold/fit.py` shortens its long items, cuts them to their values and drops them by salience."""
    pleasantries: bool = False
    """`fold/fit.py` drops its greetings, thanks and acknowledgements first."""
    near_duplicates: bool = False
    """`fold/fit.py` lists once the items that say the same with other punctuation or case."""
    halving_rank: int | None = None
    """Its place in `fold/fit.py`'s halving order (1 is halved first); None: never halved."""
    keep_oldest: bool = False
    """Halving keeps its oldest items (the newest otherwise)."""
    kept_whole: bool = False
    """`fold/fit.py` never cuts it: the user's own words, quoted."""
