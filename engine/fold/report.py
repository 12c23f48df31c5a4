"""What a fold did (docs/design.md §6): the report every caller of `fold_context` gets back.

It lives apart from the pipeline so that events (which carry it) and the pipeline (which emits
events) do not import each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class FoldReport:
    """What a fold did, with counts from the target model's tokenizer."""

    compressed: bool
    reason: str
    tokens_before: int
    tokens_after: int
    window: int
    reserved_output: int
    trigger_tokens: int
    target_tokens: int
    folded_messages: int = 0
    """Messages of the history the new snapshot stands for (earlier snapshots aside)."""
    kept_messages: int = 0
    summarizer: str = ""
    duration_ms: float = 0.0
    trigger: str | None = None
    snapshot_tokens: int = 0
    chunks: int = 0
    consolidation_depth: int = 0
    split_phase: int = 0
    covers: tuple[int, int] | None = None
    condensed_messages: tuple[int, ...] = ()
    pruned_messages: tuple[int, ...] = ()
    """Transcript numbers of the tool outputs sent as one-line stubs (docs/design.md §6.0)."""
    repairs: tuple[str, ...] = ()
    over_target: bool = False
    failed: bool = False
    """The policy asked for a fold that could not be made (counts toward pausing automatic folds)."""
    pinned_kept: tuple[int, int] = (0, 0)
    awaiting_consent: bool = False
    """`fold.auto` is ask (or off and the send would not fit): the policy wants a fold, the user decides."""
    restored_identifiers: int = 0
    """Identifiers of the folded span the summarizer's snapshot lacked, put back by the check."""
    rules_not_carried: tuple[str, ...] = ()
    """Standing rules the snapshot no longer carries: together they outgrew its room (oldest went first)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def rules_notice(self) -> str | None:
        """One line telling the user which standing rules this fold no longer carries, if any."""
        if not self.rules_not_carried:
            return None
        count = len(self.rules_not_carried)
        first = self.rules_not_carried[0]
        example = first if len(first) <= 80 else first[:79] + "…"
        return (
            f"{count} standing rule{'s' * (count != 1)} no longer fit the snapshot and are not carried "
            f"(the oldest first, e.g. {example!r}); drop rules you no longer need in the fold inspector"
        )
