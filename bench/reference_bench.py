"""What message references (the `(#12)` suffixes) cost a snapshot: tokens and time.

Run: .venv/bin/python bench/reference_bench.py [--tree PATH]
For an agent trajectory (about 40k, 200k and 1M tokens) and an everyday trip chat, with the rules
summarizer and gpt-4o's tokenizer:
- `summarize ms`: median time of one rules summary of the whole conversation (no fold pipeline);
- `snapshot tok`: the rendered, unfitted snapshot; `refs tok`: how much of it the references are (the
  same snapshot rendered with every reference stripped, subtracted);
- `fold ms` and `fitted tok`: a forced fold to a 128k window (snapshot fitted to its 15 % budget) and
  the snapshot it wrote; `fitted refs`: the references' share of that fitted snapshot.
`--tree` runs the same measures on another checkout's engine (e.g. main, which writes no references:
its `refs tok` is 0), to compare times and sizes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import timing

HERE = Path(__file__).resolve().parent
RUNS = 5


def use_tree(tree: Path) -> None:
    """Import `foldchat` from another checkout: its folders mapped as pyproject's package-dir maps them."""
    root = Path(tempfile.mkdtemp(prefix="foldchat-tree-"))
    (root / "foldchat").mkdir()
    for name in ("__init__.py", "__main__.py", "cli"):
        (root / "foldchat" / name).symlink_to(tree / "foldchat" / name)
    (root / "foldchat" / "engine").symlink_to(tree / "engine")
    sys.path.insert(0, str(root))


def median_ms(action, runs: int = RUNS) -> float:
    return timing.median_ms(action, runs)


def strip(text: str) -> str:
    try:
        from foldchat.engine.references import strip_references
    except ImportError:  # a tree without references
        return text
    return strip_references(text)


def measure(label: str, raw: list[dict]) -> None:
    from foldchat.engine import snapshot as snap
    from foldchat.engine.fold.pipeline import FoldRequest, fold_context
    from foldchat.engine.messages import parse_messages
    from foldchat.engine.summarizers import RulesSummarizer, SummaryRequest
    from foldchat.engine.tokens import LiteLLMCounter

    counter = LiteLLMCounter("gpt-4o")
    messages = parse_messages(raw)
    rest = [m for m in messages if m.role != "system"]
    summary = RulesSummarizer().summarize(SummaryRequest(rest))
    summarize = median_ms(lambda: RulesSummarizer().summarize(SummaryRequest(rest)))
    text = snap.render(summary)
    size, bare = counter.count_text(text), counter.count_text(strip(text))
    request = FoldRequest(counter=counter, window=128_000, summarizer=RulesSummarizer(), force=True)
    fold = median_ms(lambda: fold_context(messages, request), runs=3)
    result = fold_context(messages, request)
    fitted = snap.render(result.snapshot) if result.snapshot is not None else ""
    fitted_size, fitted_bare = counter.count_text(fitted), counter.count_text(strip(fitted))
    print(
        f"{label:<24} {counter.count(messages):>9,} {summarize:>12.1f} {size:>12,} {size - bare:>9,} "
        f"({(size - bare) / max(size, 1):>4.1%}) {fold:>9.1f} {fitted_size:>10,} {fitted_size - fitted_bare:>11,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, help="another checkout whose engine to measure")
    args = parser.parse_args()
    if args.tree is not None:
        use_tree(args.tree.resolve())
    sys.path.insert(0, str(HERE))
    import foldchat.engine

    from trajectories import agent_trajectory, everyday_chat

    print(f"engine: {Path(foldchat.engine.__file__).parent}")
    print(
        f"{'conversation':<24} {'tokens':>9} {'summarize ms':>12} {'snapshot tok':>12} {'refs tok':>9} {'':>7} "
        f"{'fold ms':>9} {'fitted tok':>10} {'fitted refs':>11}"
    )
    for tokens in (40_000, 200_000, 1_000_000):
        measure(f"agent trajectory {tokens // 1000}k", agent_trajectory(tokens)[0])
    measure("everyday chat 120 turns", everyday_chat(120)[0])


if __name__ == "__main__":
    main()
