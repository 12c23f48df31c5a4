"""How much of the artifact trail survives a fold, per agent shape and window.

Run: .venv/bin/python bench/artifact_bench.py
Each trajectory (tests/fixtures/agent_shapes.py: SWE-agent, OpenHands, Claude Code, mini-swe-agent,
ChatGPT code interpreter; 150 steps, hundreds of messages) is folded through `fold_context` with the
rules summarizer and `force=True`, as `foldchat compress --context-window N --force` does. A path or an
edited path is kept when it appears in the folded context (snapshot or kept turns). Commands are counted
as the targets define them, distinct by their first 40 characters; one is kept when those characters appear.
Targets: edited 100 %, paths >= 90 %, commands >= 80 %, snapshot tokens <= budget.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fixtures"))

from agent_shapes import SHAPES, trajectory
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter

MODEL = "gpt-4o"
WINDOWS = (8_000, 32_000)


@dataclass(frozen=True)
class TrailKept:
    shape: str
    window: int
    messages: int
    folded: int
    paths: tuple[int, int]
    changed: tuple[int, int]
    commands: tuple[int, int]
    snapshot_tokens: int
    budget: int


def measure(shape: str, window: int, counter: LiteLLMCounter | None = None, steps: int = 150) -> TrailKept:
    raw, truth = trajectory(shape, steps=steps)
    messages = parse_messages(raw)
    counter = counter or LiteLLMCounter(MODEL)
    request = FoldRequest(counter=counter, window=window, summarizer=RulesSummarizer(), force=True)
    result = fold_context(messages, request)
    # kept = still in what is sent: in the snapshot, or in the turns kept verbatim after it
    flat = " ".join(
        " ".join(m.text + "".join(f" {c.name}: {c.arguments}" for c in m.tool_calls) for m in result.messages).split()
    )
    budget = FoldPolicy().snapshot_cap(window)

    def kept(items: set[str], prefix: int | None = None) -> tuple[int, int]:
        return sum(1 for item in items if (item[:prefix] if prefix else item) in flat), len(items)

    return TrailKept(
        shape,
        window,
        len(messages),
        result.report.folded_messages,
        kept(truth.paths),
        kept(truth.changed),
        kept({command[:40] for command in truth.commands}),
        result.report.snapshot_tokens,
        budget,
    )


def _pct(pair: tuple[int, int]) -> str:
    kept, total = pair
    return f"{kept}/{total} {100 * kept / total:.0f}%" if total else "-"


def main() -> None:
    header = f"{'shape':<17} {'window':>6} {'msgs':>5} {'folded':>6} {'paths kept':>14} {'edited kept':>13} {'commands kept':>14} {'snapshot/budget':>16}"
    print(header)
    for shape in SHAPES:
        for window in WINDOWS:
            row = measure(shape, window)
            print(
                f"{row.shape:<17} {row.window:>6} {row.messages:>5} {row.folded:>6} {_pct(row.paths):>14} "
                f"{_pct(row.changed):>13} {_pct(row.commands):>14} {row.snapshot_tokens:>7}/{row.budget:<8}"
            )


if __name__ == "__main__":
    main()
