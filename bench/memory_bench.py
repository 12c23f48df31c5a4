"""Nothing said is lost: after a conversation is folded, is the answer to a question about a folded part in
the request that carries the question? (docs/design.md §14; automatic recall at every send.)

Run: .venv/bin/python bench/memory_bench.py [--set tuned|heldout|both] [--windows 8192 16384] [--chats NAME ...]

Two sets of chats: `tuned` (bench/chats/*.json, the six the fold's heuristics were developed on) and
`heldout` (bench/chats/heldout/*.json, written apart, never used to tune anything: only measured). Each
chat is replayed as the app sends it (everyday_bench.replay: automatic folds, the rules summarizer, gpt-4o's
tokenizer); then each annotated question whose evidence message is no longer verbatim in the final context
is asked on that context, alone, as the app would send it: folded first when the question takes it past
the trigger, then the context, automatic recall's passages for the question (within `[fold] recall_budget`
and the room left), the question. Reported per chat and window:

- `ans ctx`: the answer is in the context before the question is asked (what the fold alone keeps);
- `ans req`: the answer is in the request that carries the question (fold + recall);
- `evid`: the evidence message came back word for word (a recalled passage of it holds the answer);
- `auto@3` / `tool@3` / `bm25@3`: a message holding the answer is in the top 3 of automatic recall's
  ranking (the question as typed, with the exchange before it), of the `recall` tool's ranking, and of a
  plain BM25 written here (both with the question's topic words, as a model would call the tool);
- `bad marks`: snapshot lines that mark a current value as replaced (a planted update's new value, or a
  planted "distinct" value that merely looks like another), and `replaces` lists naming more than 5;
- `ms`: median time to find and cut the passages for one question (the index is built once per chat).

Questions whose answer is a message's date ("when did …") count as answered when the date is in the
request: recalled passages carry the day they were said.
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.recall import Original, recallable, search
from foldchat.engine.recall_at_send import find_passages, query_of, with_recalled
from foldchat.engine.recall_index import RecallIndex, query_for
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for

from everyday_bench import CHATS, MODEL, RESERVE, bm25_top, replay, text_of, topic_words, verbatim_numbers

HELDOUT = CHATS / "heldout"
MARK = re.compile(r"\[replaced by #\d+\]")
REPLACES = re.compile(r"\[current; replaces ([^\]]*)\]")


def load(path: Path) -> tuple[dict, list[Message], dict[int, float]]:
    """A chat, its messages (without their dates) and when each was said (by 1-based number)."""
    chat = json.loads(path.read_text())
    raw = [{k: v for k, v in m.items() if k != "date"} for m in chat["messages"]]
    dates = {
        n: float(calendar.timegm(time.strptime(m["date"], "%Y-%m-%d")) + 12 * 3600 - time.timezone)
        for n, m in enumerate(chat["messages"], start=1)
        if m.get("date")
    }
    return chat, parse_messages(raw), dates


def bad_marks(chat: dict, context_text: str) -> tuple[int, int]:
    """Snapshot lines marking a current value replaced, and `replaces` lists over 5 messages."""
    wrong = 0
    for item in chat["planted"]:
        if item["kind"] not in ("update", "distinct"):
            continue
        current = item["must_contain"]
        later = [u for u in chat["planted"] if u["kind"] == "update" and u["message"] > item["message"]
                 and any(c in u.get("stale", []) for c in current)]  # fmt: skip
        if later:
            continue  # replaced for real by a later update: a mark is right
        wrong += sum(1 for line in context_text.splitlines() if MARK.search(line) and any(c in line for c in current))
    long_lists = sum(1 for m in REPLACES.finditer(context_text) if len(re.findall(r"#\d+", m.group(1))) > 5)
    return wrong, long_lists


def asked(
    context: list[Message], question: str, numbered: list[tuple[int, Message]], dates: dict[int, float],
    window: int, counter, originals: list[Original],
) -> tuple[list[Message], list[Original]]:
    """The request that carries `question` as the app builds it: when the question takes the context past
    the trigger, the fold the app makes before the send comes first (and what may be recalled with it)."""
    request = [*context, Message.user(question)]
    policy = FoldPolicy()
    if counter.count(request) + RESERVE < policy.trigger_at(window):
        return request, originals
    folded = fold_context(request, FoldRequest(counter=counter, window=window, summarizer=RulesSummarizer(),
                                               policy=policy, reserved_output=RESERVE))  # fmt: skip
    if not folded.report.compressed:
        return request, originals
    return list(folded.messages), recallable(numbered, folded.messages[:-1], dates)


def measure(chat: dict, messages: list[Message], dates: dict[int, float], window: int, counter) -> dict[str, object]:
    policy = FoldPolicy()
    run = replay(messages, window, counter)
    context = run.context
    kept = verbatim_numbers(context)
    numbered = [(m.key + 1, m) for m in messages if m.key is not None]
    originals: list[Original] = recallable(numbered, context, dates)
    folded = [q for q in chat["questions"] if q["message"] not in kept]
    context_text = text_of(context)
    index = RecallIndex()
    index.sync((n, m.text) for n, m in numbered)
    by_number = {o.number: o for o in originals}
    texts = [o.message.text for o in originals]
    hits = {"ctx": 0, "req": 0, "evid": 0, "auto": 0, "tool": 0, "bm25": 0}
    took: list[float] = []
    for q in folded:
        answers = q["answers"]
        hits["ctx"] += any(a in context_text for a in answers)
        request, asked_originals = asked(context, q["question"], numbered, dates, window, counter, originals)
        room = window - RESERVE - counter.count(request)
        budget = min(policy.recall_at(window), room)
        started = time.perf_counter()
        recalled = find_passages(index, asked_originals, request, budget, counter.count_text)
        took.append((time.perf_counter() - started) * 1000)
        sent = with_recalled(request, recalled) if recalled else request
        hits["req"] += any(a in text_of(sent) for a in answers)
        if recalled is not None:
            hits["evid"] += any(p.number == q["message"] and any(a in p.text or a == p.day for a in answers)
                                for p in recalled.passages)  # fmt: skip
        holds = {o.number for o in originals if any(a in o.message.text for a in answers)}
        if q["message"] in dates and any(a == time.strftime("%Y-%m-%d", time.localtime(dates[q["message"]]))
                                         for a in answers):  # fmt: skip
            holds.add(q["message"])  # a date answer: the evidence message is what has to be found
        query = query_of(request) or query_for(q["question"])
        hits["auto"] += any(n in holds for n, _ in index.ranked(query, by_number.keys(), 3))
        topic = topic_words(q["question"])
        hits["tool"] += any(o.number in holds for o in search(originals, topic, 3, index))
        hits["bm25"] += any(originals[i].number in holds for i in bm25_top(texts, topic))
    index.close()
    n = max(1, len(folded))
    wrong, long_lists = bad_marks(chat, context_text)
    return {
        "folds": len(run.folds),
        "folded q": len(folded),
        "ans ctx": hits["ctx"] / n,
        "ans req": hits["req"] / n,
        "evid": hits["evid"] / n,
        "auto@3": hits["auto"] / n,
        "tool@3": hits["tool"] / n,
        "bm25@3": hits["bm25"] / n,
        "bad marks": wrong,
        "lists>5": long_lists,
        "ms": statistics.median(took) if took else float("nan"),
    }


def chats_of(which: str, names: list[str] | None) -> list[tuple[str, Path]]:
    sets = {"tuned": sorted(CHATS.glob("*.json")), "heldout": sorted(HELDOUT.glob("*.json"))}
    chosen = [("tuned", p) for p in sets["tuned"]] if which in ("tuned", "both") else []
    chosen += [("heldout", p) for p in sets["heldout"]] if which in ("heldout", "both") else []
    return [(s, p) for s, p in chosen if not names or p.stem in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["tuned", "heldout", "both"], default="both")
    parser.add_argument("--windows", type=int, nargs="+", default=[8192, 16384])
    parser.add_argument("--chats", nargs="+")
    args = parser.parse_args()
    counter = counter_for(MODEL)
    columns = ["folds", "folded q", "ans ctx", "ans req", "evid", "auto@3", "tool@3", "bm25@3", "bad marks",
               "lists>5", "ms"]  # fmt: skip
    print(f"{'set':<8} {'chat':<18} {'window':>6} " + " ".join(f"{c:>9}" for c in columns))
    totals: dict[tuple[str, int], list[dict[str, object]]] = {}
    for which, path in chats_of(args.set, args.chats):
        chat, messages, dates = load(path)
        for window in args.windows:
            row = measure(chat, messages, dates, window, counter)
            totals.setdefault((which, window), []).append(row)
            cells = [f"{v:>9.2f}" if isinstance(v, float) else f"{v!s:>9}" for v in row.values()]
            print(f"{which:<8} {path.stem:<18} {window:>6} " + " ".join(cells))
    for (which, window), rows in totals.items():
        asked = sum(int(r["folded q"]) for r in rows)  # type: ignore[call-overload]
        pooled = {
            k: sum(float(r[k]) * int(r["folded q"]) for r in rows) / max(1, asked)  # type: ignore[arg-type, call-overload]
            for k in ("ans ctx", "ans req", "evid", "auto@3", "tool@3", "bm25@3")
        }
        marks = sum(int(r["bad marks"]) for r in rows)  # type: ignore[call-overload]
        lists = sum(int(r["lists>5"]) for r in rows)  # type: ignore[call-overload]
        print(f"{which:<8} {'ALL (' + str(asked) + ' q)':<18} {window:>6} "
              + " ".join(f"{k} {v:.2f}" for k, v in pooled.items()) + f" bad marks {marks} lists>5 {lists}")  # fmt: skip


if __name__ == "__main__":
    main()
