"""Folding (docs/design.md §6): the pipeline and its steps.

- `pipeline`: `fold_context`, `FoldRequest`, `FoldResult`: policy, prune, split, summarize, check, fit;
- `prune`, `condense`, `split`: the steps before summarizing;
- `check`: a summary checked against what it summarizes, and restored;
- `fit`: a snapshot fitted to its token budget;
- `supersede`: values a later message replaced marked as history;
- `layout`: where the snapshot goes among the messages kept;
- `report`: `FoldReport`, what a fold did;
- `prefold`: a fold prepared ahead, while the user reads;
- `compress`: the `foldchat compress` job.
"""
