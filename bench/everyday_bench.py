"""How much of an everyday conversation a fold keeps, fold after fold, against plain truncation.

Run: .venv/bin/python bench/everyday_bench.py [--windows 4096 8192 16384] [--chats trip recipes ...] [--tree PATH]

The chats in bench/chats/ are long everyday conversations written for this benchmark (a trip planned
over weeks, a family's recipes and diet, a job search, a coding help chat with code in replies, two
friends catching up, a support case), 20-30k tokens each, with annotated questions whose answers either
side stated, and planted items (rules, constraints, facts, a goal, a preference, and values updated
later). Each chat is replayed turn by turn as the app sends it: before each user message is sent the
fold policy runs (automatic folds, the rules summarizer, gpt-4o's tokenizer, the default policy), the
reply is appended after. Reported per chat and window:

- `ans fold` / `ans trunc`: right after each fold, of the questions whose answer lies in the part folded
  by then, the share whose answer is in the context; and the share that plain truncation of the
  transcript so far to the same number of tokens keeps (newest whole messages first); over all folds;
- `kept@1/3/5`: planted items (folded by then) whose text survives after the 1st, 3rd and 5th fold (an
  item whose value a later update replaced by then is history, not counted);
  `upd ok`: updated values folded by the end that are current: the new value present, the old one only
  where marked as replaced;
- `use`: mean (context + reply reserve) / target after the automatic folds (1.0 = on target);
- `recall` / `bm25` / `substr`: of the folded answers, how often `recall`'s ranked search with the
  question's topic words puts a message holding the answer in its top 3; the same for a plain BM25
  ranking (written here) and for a substring match of the words.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

if "--tree" in sys.argv:  # another checkout's engine (e.g. the last release), before anything imports ours
    from reference_bench import use_tree

    use_tree(Path(sys.argv[sys.argv.index("--tree") + 1]).resolve())

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.policy import FoldHistory, FoldPolicy
from foldchat.engine.recall import Original
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for

try:
    from foldchat.engine.recall import search
except ImportError:  # a checkout from before ranked recall: its substring match, oldest first
    from foldchat.engine.recall import Original as _Original

    def search(originals: list[_Original], query: str, limit: int = 3) -> list[_Original]:
        return [o for o in originals if query.strip().lower() in o.message.text.lower()][:limit]


CHATS = Path(__file__).parent / "chats"
MODEL = "gpt-4o"
RESERVE = 1024
_WORD = re.compile(r"[A-Za-z0-9$€£][\w'$€£.,:/-]*")
STOP = set(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "do",
        "does",
        "did",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "they",
        "them",
        "his",
        "her",
        "their",
        "there",
        "here",
        "about",
        "into",
        "over",
        "after",
        "before",
        "than",
        "then",
        "so",
        "if",
        "as",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "any",
        "some",
        "all",
        "again",
        "also",
        "just",
        "only",
        "up",
        "down",
        "out",
        "off",
        "much",
        "many",
        "more",
        "most",
        "very",
        "too",
        "tell",
        "remind",
        "remember",
        "said",
        "say",
        "says",
        "mention",
        "mentioned",
        "earlier",
        "chat",
        "conversation",
        "exactly",
        "name",
        "named",
        "called",
        "which's",
        "what's",
        "who's",
        "it's",
        "did's",
        "was's",
    ]
)


def topic_words(question: str) -> str:
    words = [w.strip("?.,!'\"").lower() for w in question.split()]
    return " ".join(w for w in words if w and w not in STOP)


def bm25_top(texts: list[str], query: str, k: int = 3) -> list[int]:
    """Indices of the k best texts for `query` by Okapi BM25 (k1 1.2, b 0.75), written independently."""
    docs = [[w.lower() for w in re.findall(r"\w+", t)] for t in texts]
    terms = [w.lower() for w in re.findall(r"\w+", query)]
    n = len(docs)
    avg = sum(map(len, docs)) / max(1, n)
    df = {t: sum(1 for d in docs if t in d) for t in set(terms)}
    scores = []
    for i, doc in enumerate(docs):
        score = 0.0
        for t in set(terms):
            f = doc.count(t)
            if not f:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len(doc) / avg))
        scores.append((score, i))
    return [i for s, i in sorted(scores, key=lambda x: (-x[0], x[1]))[:k] if s > 0]


@dataclass
class Run:
    context: list[Message]
    folds: list[list[Message]] = field(default_factory=list)  # the context right after each fold
    uses: list[float] = field(default_factory=list)
    fold_ms: list[float] = field(default_factory=list)


def replay(messages: list[Message], window: int, counter) -> Run:
    policy = FoldPolicy()
    run = Run(context=[])
    history = FoldHistory()
    since = 0
    for message in messages:
        run.context.append(message)
        since += 1
        if message.role != "user":
            continue
        request = FoldRequest(
            counter=counter, window=window, summarizer=RulesSummarizer(), policy=policy,
            reserved_output=RESERVE, history=history,
        )  # fmt: skip
        started = time.perf_counter()
        result = fold_context(run.context, request)
        if result.report.compressed:
            run.fold_ms.append((time.perf_counter() - started) * 1000)
            run.context = list(result.messages)
            run.folds.append(list(run.context))
            run.uses.append((result.report.tokens_after + RESERVE) / policy.target_at(window))
            since = 0
        usage = counter.count(run.context) + RESERVE
        history = FoldHistory(
            folded=bool(run.folds), messages_since=since, dropped_below_reset=usage < policy.reset_at(window)
        )
    return run


def verbatim_numbers(context: list[Message]) -> set[int]:
    return {m.key + 1 for m in context if m.key is not None and not m.is_snapshot}


def text_of(context: list[Message]) -> str:
    return "\n".join(m.text for m in context)


def truncated(messages: list[Message], tokens: int, counter) -> str:
    kept: list[Message] = []
    for message in reversed(messages):
        if counter.count([message, *kept]) > tokens:
            break
        kept.insert(0, message)
    return text_of(kept)


def planted_ok(item: dict, context_text: str) -> bool:
    return all(s in context_text for s in item["must_contain"])


def _said_before(line: str, message: int) -> bool:
    """A snapshot line whose references are all older than `message` (a line from a later message, or a
    verbatim one after the snapshot, that names the same number names another thing: "$240 overnight")."""
    refs = [int(n) for n in re.findall(r"#(\d+)", line[line.rfind("(") :])] if line.rstrip().endswith(")") else []
    return bool(refs) and max(refs) < message


def update_current(item: dict, context_text: str) -> bool:
    if not planted_ok(item, context_text):
        return False
    for line in context_text.splitlines():
        if any(stale in line for stale in item.get("stale", [])) and _said_before(line, item["message"]):
            new_too = all(s in line for s in item["must_contain"])
            if not (new_too or "[replaced by" in line):
                return False
    return True


def _replaced_by_then(chat: dict, item: dict, last: int) -> bool:
    """A planted item whose value a later update (sent by message `last`) replaced: history, not lost."""
    said = " ".join(item["must_contain"])
    return any(
        u["message"] <= last and any(stale in said for stale in u.get("stale", []))
        for u in chat["planted"]
        if u["kind"] == "update" and u["message"] > item["message"]
    )


def measure(chat: dict, window: int, counter) -> dict[str, object]:
    messages = parse_messages(chat["messages"])
    run = replay(messages, window, counter)
    context = run.context
    kept = verbatim_numbers(context)
    folded = [q for q in chat["questions"] if q["message"] not in kept]
    context_text = text_of(context)
    # after every fold: the questions whose answer it covered, against truncation of the transcript so far
    fold_hits = trunc_hits = asked = 0
    for after in run.folds:
        last = max(m.key + 1 for m in after if m.key is not None)
        shown = verbatim_numbers(after)
        covered = [q for q in chat["questions"] if q["message"] <= last and q["message"] not in shown]
        text, trunc_text = text_of(after), truncated(messages[:last], counter.count(after), counter)
        fold_hits += sum(any(a in text for a in q["answers"]) for q in covered)
        trunc_hits += sum(any(a in trunc_text for a in q["answers"]) for q in covered)
        asked += len(covered)
    survived: dict[int, str] = {}
    for k in (1, 3, 5):
        if len(run.folds) < k:
            survived[k] = "n/a"
            continue
        after = run.folds[k - 1]
        covered = verbatim_numbers(after)
        items = [p for p in chat["planted"] if p["kind"] != "update" and p["message"] not in covered]
        last = max(m.key + 1 for m in after if m.key is not None)
        items = [p for p in items if p["message"] <= last and not _replaced_by_then(chat, p, last)]
        text = text_of(after)
        ok = sum(planted_ok(p, text) for p in items)
        survived[k] = f"{ok}/{len(items)}"
    # updates the folds covered: the snapshot must carry the new value as current (one still verbatim in
    # the recent turns is current by its place, after the snapshot)
    updates = [p for p in chat["planted"] if p["kind"] == "update" and p["message"] not in kept]
    upd_ok = sum(update_current(p, context_text) for p in updates)
    originals = [Original(m.key + 1, m) for m in messages if m.key is not None and m.key + 1 not in kept]
    texts = [o.message.text for o in originals]
    recall_hits = bm25_hits = substr_hits = 0
    for q in folded:
        query = topic_words(q["question"])
        holds = [any(a in t for a in q["answers"]) for t in texts]
        top = [originals.index(o) for o in search(originals, query, 3)]
        recall_hits += any(holds[i] for i in top)
        bm25_hits += any(holds[i] for i in bm25_top(texts, query))
        substr = [i for i, t in enumerate(texts) if query and query.lower() in t.lower()][:3]
        substr_hits += any(holds[i] for i in substr)
    n = max(1, len(folded))
    return {
        "folds": len(run.folds),
        "folded q": len(folded),
        "ans fold": fold_hits / max(1, asked),
        "ans trunc": trunc_hits / max(1, asked),
        "kept@1": survived[1],
        "kept@3": survived[3],
        "kept@5": survived[5],
        "upd ok": f"{upd_ok}/{len(updates)}",
        "use": statistics.mean(run.uses) if run.uses else float("nan"),
        "recall": recall_hits / n,
        "bm25": bm25_hits / n,
        "substr": substr_hits / n,
        "fold ms": statistics.median(run.fold_ms) if run.fold_ms else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[4096, 8192, 16384])
    parser.add_argument("--chats", nargs="+", default=sorted(p.stem for p in CHATS.glob("*.json")))
    parser.add_argument("--tree", type=Path, help="measure another checkout's engine (e.g. a worktree of main)")
    args = parser.parse_args()
    counter = counter_for(MODEL)
    columns = ["folds", "folded q", "ans fold", "ans trunc", "kept@1", "kept@3", "kept@5", "upd ok", "use",
               "recall", "bm25", "substr", "fold ms"]  # fmt: skip
    print(f"{'chat':<10} {'window':>6} " + " ".join(f"{c:>9}" for c in columns))
    totals: dict[int, list[dict[str, object]]] = {}
    for name in args.chats:
        chat = json.loads((CHATS / f"{name}.json").read_text())
        tokens = counter.count(parse_messages(chat["messages"]))
        for window in args.windows:
            row = measure(chat, window, counter)
            totals.setdefault(window, []).append(row)
            cells = [f"{v:>9.2f}" if isinstance(v, float) else f"{v!s:>9}" for v in row.values()]
            print(f"{name:<10} {window:>6} " + " ".join(cells) + f"   ({tokens:,} tokens)")
    for window, rows in totals.items():
        mean = {
            k: statistics.mean(float(r[k]) for r in rows)
            for k in ("ans fold", "ans trunc", "use", "recall", "bm25", "substr")
        }  # type: ignore[arg-type]
        print(f"{'mean':<10} {window:>6} " + " ".join(f"{k} {v:.2f}" for k, v in mean.items()))


if __name__ == "__main__":
    main()
