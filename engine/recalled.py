"""What a send recalled, as it is stored and shown: the passages (a message's words, whole or its matching
lines) and the tokens their block took. Apart from choosing them (recall_passages.py), so `foldchat show`
reads them without loading the recall index. Named tuples, not dataclasses: `show` defines them on every start
(a frozen dataclass costs ~1 ms to define here).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, NamedTuple

from .store import recall_rows

if TYPE_CHECKING:
    from .store import Store


class Passage(NamedTuple):
    """A message's words as recalled: whole, or its matching lines with gaps marked."""

    number: int
    role: str
    at: float | None
    text: str
    whole: bool

    @property
    def day(self) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(self.at)) if self.at is not None else ""


class Recalled(NamedTuple):
    """What one send recalled: the passages, in conversation order, and the tokens their block adds."""

    passages: tuple[Passage, ...]
    tokens: int

    @property
    def numbers(self) -> list[int]:
        return [p.number for p in self.passages]

    def summary(self) -> str:
        """One line, as the transcript and `foldchat ask` say it: "recalled #12, #48 · 312 tokens"."""
        return f"recalled {', '.join(f'#{n}' for n in self.numbers)} · {self.tokens:,} tokens"

    def shown(self) -> str:
        """The passages as a face shows them: a header line each (number, role, day), then the words."""
        return "\n\n".join(
            f"#{p.number} · {p.role}{' · ' + p.day if p.day else ''}{'' if p.whole else ' · matching lines'}\n{p.text}"
            for p in self.passages
        )

    def to_json(self) -> str:
        return json.dumps({"tokens": self.tokens, "passages": [p._asdict() for p in self.passages]})

    @classmethod
    def from_json(cls, raw: str) -> Recalled | None:
        """What was stored, or None when it is not what `to_json` writes (a damaged row is no recall)."""
        try:
            data: Any = json.loads(raw)
            passages = tuple(
                Passage(int(p["number"]), str(p["role"]), None if p["at"] is None else float(p["at"]),
                        str(p["text"]), bool(p["whole"]))
                for p in data["passages"]
            )  # fmt: skip
            return cls(passages, int(data["tokens"]))
        except (ValueError, TypeError, KeyError):
            return None


def stored_recalls(store: Store, conversation_id: int) -> dict[int, Recalled]:
    """What was recalled for each prompt of a conversation (message id -> passages); a damaged row is none."""
    rows = recall_rows.recalls(store, conversation_id)
    return {i: r for i, raw in rows.items() if (r := Recalled.from_json(raw)) is not None}
