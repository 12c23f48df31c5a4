"""How a stored fold rebuilds the context it reported (docs/design.md §1: the context comes from the transcript
plus the active fold).

No schema change: the fold record's `snapshot` JSON keeps, next to the snapshot's own fields, one
`layout` object:
- `snapshot`: false for a fold that only pruned tool outputs (no snapshot message is sent);
- `kept`: transcript ids inside the covered range that stay verbatim (the current user message of a
  fold made inside its turn, docs/design.md §3.5);
- `replaced`: transcript id -> the text sent instead of the original (pruned tool outputs' stubs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..attachments import is_stubbed
from ..messages import Message

LAYOUT_KEY = "layout"


class FoldRange(Protocol):
    """What the layout needs of a stored fold (the store's `StoredFold` is one)."""

    @property
    def first_message_id(self) -> int: ...

    @property
    def last_message_id(self) -> int: ...

    @property
    def snapshot(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class FoldLayout:
    """How a fold left its range: whether a snapshot stands for it, the messages kept verbatim and the ones
    replaced by a stub (their text)."""

    has_snapshot: bool = True
    kept: frozenset[int] = frozenset()
    replaced: Mapping[int, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.has_snapshot,
            "kept": sorted(self.kept),
            "replaced": {str(key): text for key, text in sorted(self.replaced.items())},
        }

    @classmethod
    def of(cls, fold: FoldRange) -> FoldLayout:
        """The layout stored with `fold`; folds written before layouts existed have the default one."""
        raw = fold.snapshot.get(LAYOUT_KEY)
        if not isinstance(raw, Mapping):
            return cls()
        replaced = raw.get("replaced") or {}
        return cls(
            has_snapshot=bool(raw.get("snapshot", True)),
            kept=frozenset(int(k) for k in raw.get("kept") or ()),
            replaced={int(k): str(v) for k, v in replaced.items()},
        )

    def apply(self, message: Message) -> Message:
        """`message` as the fold sends it: a pruned tool output becomes its stub."""
        text = self.replaced.get(message.key) if message.key is not None else None
        return message if text is None else message.evolve(content=text, has_content_key=True)

    def sends(self, fold: FoldRange, message: Message) -> bool:
        """Whether `message` is sent verbatim after the snapshot (not covered by it)."""
        key = message.key or 0
        return not self.has_snapshot or key > fold.last_message_id or key in self.kept


def covered_messages(fold: FoldRange, transcript_ids: Sequence[int]) -> int:
    """The one count every face shows for a fold: transcript messages its snapshot stands for (or pruned)."""
    return len(covered_ids(fold, transcript_ids))


def covered_ids(fold: FoldRange, transcript_ids: Sequence[int]) -> list[int]:
    """The transcript ids `fold` stands for, oldest first: the messages its snapshot replaces (kept ones
    aside), or the tool outputs a pruned-only fold stubs."""
    layout = FoldLayout.of(fold)
    if not layout.has_snapshot:
        return [i for i in transcript_ids if i in layout.replaced]
    return [i for i in transcript_ids if fold.first_message_id <= i <= fold.last_message_id and i not in layout.kept]


@dataclass(frozen=True)
class NewFold:
    """What to store for a fold: the covered id range and the snapshot JSON with its layout."""

    first_message_id: int
    last_message_id: int
    snapshot: dict[str, Any]
    edited_text: str | None = None  # a new fold has no user edit (what lets it rebuild a context before it is stored)


def new_fold(
    context: Sequence[Message],
    folded: Sequence[Message],
    snapshot: dict[str, Any] | None,
    previous: FoldRange | None,
) -> NewFold | None:
    """The record that makes the context rebuild to `context` (a fold's output), or None if nothing to store.

    `snapshot` is the new snapshot's fields (None for a pruned-only fold, which keeps any earlier one).
    """
    replaced = _replacements(context, previous)
    earlier = previous if previous is not None and FoldLayout.of(previous).has_snapshot else None
    if snapshot is None:
        return _pruned_only(replaced, earlier)
    keys = [m.key for m in folded if m.key is not None]
    if not keys and earlier is None:
        return None
    first = min([*keys, earlier.first_message_id] if earlier else keys)
    last = max([*keys, earlier.last_message_id] if earlier else keys)
    kept = frozenset(m.key for m in context if m.key is not None and m.key <= last and not m.is_snapshot)
    layout = FoldLayout(True, kept, replaced)
    return NewFold(first, last, {**snapshot, LAYOUT_KEY: layout.to_json()})


def _pruned_only(replaced: dict[int, str], earlier: FoldRange | None) -> NewFold | None:
    if not replaced:
        return None
    if earlier is not None:  # the earlier snapshot stays; only more outputs are stubbed
        layout = FoldLayout(True, FoldLayout.of(earlier).kept, replaced)
        data = {**earlier.snapshot, LAYOUT_KEY: layout.to_json()}
        return NewFold(earlier.first_message_id, earlier.last_message_id, data)
    data = {LAYOUT_KEY: FoldLayout(False, frozenset(), replaced).to_json()}
    return NewFold(min(replaced), max(replaced), data)


def _replacements(context: Sequence[Message], previous: FoldRange | None) -> dict[int, str]:
    """Transcript id -> the text sent instead: tool outputs pruned to stubs, and user messages whose
    attachments were (a pruned-only fold of a big attached file was computed, never stored, and the
    conversation never folded again). A user message rebuilt from an earlier fold's replacement is plain
    text by then: it keeps its replacement."""
    earlier = FoldLayout.of(previous).replaced if previous is not None else {}
    out: dict[int, str] = {}
    for message in context:
        key = message.key
        if key is None:
            continue
        if (message.role == "tool" and _is_stub(message)) or (message.role == "user" and (_has_stubbed_attachment(message) or earlier.get(key) == message.text)):
            out[key] = message.text
    return out


def _has_stubbed_attachment(message: Message) -> bool:
    content = message.content
    return isinstance(content, tuple) and any(isinstance(part, Mapping) and is_stubbed(part) for part in content)


def _is_stub(message: Message) -> bool:
    from .prune import is_pruned  # the prune step imports the summarizers; keep this module light

    return is_pruned(message)
