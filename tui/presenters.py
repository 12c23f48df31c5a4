"""Turning engine state into what the widgets show. Pure functions, called from workers."""

from __future__ import annotations

from dataclasses import dataclass

from foldchat.engine import (
    SNAPSHOT_SECTIONS,
    Session,
    Usage,
    UsageTotals,
    is_snapshot_message,
    line_without_recall,
    missing_key,
    reply_line,
    reply_usages,
    total_line,
    turns_words,
)

from .literal import excerpt
from .screens.fold_inspector import FoldView
from .screens.model_picker import ModelChoice
from .widgets.fold_marker import marker_text
from .widgets.gauge import GaugeState
from .widgets.message import MessageData
from .widgets.transcript import FoldItem, Item


@dataclass(frozen=True)
class TranscriptState:
    items: list[Item]
    pinned: set[int]
    folded_upto: int
    spent: UsageTotals
    """The replies' cost, and how much of their input the providers read from their cache."""
    damaged_folds: str | None = None
    """The conversation's folds that cannot be read and count as undone, said once when it opens."""

    def opening_notices(self, session: Session) -> list[tuple[str, str]]:
        """What the app says once as it opens the conversation, (title, text): saved app state it had to
        ignore, folds it cannot read."""
        notices = [("Saved app state ignored", session.workspace.remembered.problem)]
        notices.append(("Fold treated as undone", self.damaged_folds))
        return [(title, text) for title, text in notices if text]


def transcript_state(session: Session) -> TranscriptState:
    """Every message, a marker after each active fold, and the numbers for the gauge."""
    transcript = session.context.transcript()
    folds = session.chain.folds()
    pins = session.context.pinned_ids()
    pinned_texts = [m.message.text for m in transcript if m.id in pins]
    markers: dict[int, list[FoldItem]] = {}
    for fold in folds:
        text = session.chain.snapshot_text(fold)
        kept = sum(1 for t in pinned_texts if t in text)
        covered = session.chain.coverage(fold)  # the count the toast and the inspector show too
        label = marker_text(covered, fold.tokens_before, fold.tokens_after, fold.summarizer, (kept, len(pinned_texts)))
        markers.setdefault(fold.last_message_id, []).append(FoldItem(fold.id, label))
    recalls = session.replies.at_send.stored()
    numbers = session.context.message_numbers()  # what snapshots, stubs and recall cite: the headers show it
    items: list[Item] = []
    for stored in transcript:
        items.append(MessageData.from_stored(stored, recalls.get(stored.id), numbers.get(stored.id)))
        items.extend(markers.get(stored.id, []))
    return TranscriptState(
        items=items,
        pinned=set(pins),
        folded_upto=folds[-1].last_message_id if folds else 0,
        spent=session.replies.usage_totals(),
        damaged_folds=session.workspace.damaged_folds_notice(session.conversation_id),
    )


def fold_view(session: Session, fold_id: int) -> FoldView:
    fold = session.chain.record(fold_id)
    text = session.chain.snapshot_text(fold)
    snapshot = session.chain.snapshot_of(fold)
    sections: list[tuple[str, list[str]]] = []
    # as the model reads it: one without the recall tool (the local model) is not told to recall
    worded = (lambda line: line) if session.context.offers_recall(session.target) else line_without_recall
    for name in SNAPSHOT_SECTIONS:
        value = getattr(snapshot, name)
        lines = [value] if isinstance(value, str) and value else list(value or [])
        sections.append((name, [worded(line) for line in lines]))
    numbers = session.context.message_numbers()  # the conversation's own 1-based numbers, not database ids
    by_id = {m.id: m for m in session.context.transcript()}
    covered_ids = session.chain.covered_ids(fold)
    preview = [f"{numbers[i]} · {by_id[i].message.role}: {excerpt(by_id[i].message.text)}" for i in covered_ids[:200]]
    earlier = [f for f in session.chain.folds() if f.id <= fold.id]
    chain = [f"#{n} ({f.trigger}, {f.tokens_after:,} tok)" for n, f in enumerate(earlier, start=1)]
    return FoldView(
        fold_id=fold.id, sections=sections, snapshot_text=text, edited=fold.edited_text is not None,
        covers=(numbers.get(fold.first_message_id, 0), numbers.get(fold.last_message_id, 0)),
        covered_count=len(covered_ids),
        tokens_before=fold.tokens_before, tokens_after=fold.tokens_after, summarizer=fold.summarizer,
        trigger=fold.trigger, chain=chain, covered=preview, rules=session.chain.standing_rules(fold),
        number=len(earlier),
    )  # fmt: skip


def model_choices(session: Session) -> list[ModelChoice]:
    """The picker's rows: current, recent (marked), aliases, default, and each provider whose key is set."""
    choices = []
    recent = set(session.workspace.recent_models())
    for target, usage in session.model_usages():  # the fit said as the switch notice says it (Usage.fit_words)
        choices.append(
            ModelChoice(
                target.name, target.window, target.input_cost_per_token * 1e6, target.output_cost_per_token * 1e6,
                usage.fit_words(),
                "recent" if target.name in recent else "", missing_key(target),
            )
        )  # fmt: skip
    return choices


def context_breakdown(session: Session, typed: int) -> str:
    """/context: where the tokens go, by kind."""
    counter = session.counter()
    parts = {"system": 0, "snapshot": 0, "history": 0, "tools": 0}
    for message in session.context.messages():
        tokens = counter.count_message(message)
        if message.role == "system":
            parts["system"] += tokens
        elif is_snapshot_message(message):
            parts["snapshot"] += tokens
        elif message.role == "tool" or message.tool_calls:
            parts["tools"] += tokens
        else:
            parts["history"] += tokens
    usage = session.usage()
    parts["recalled (last send)"] = usage.recalled
    parts["input (typing)"] = typed
    parts["reserved for the reply"] = usage.reserved
    total = sum(parts.values())
    rows = "\n".join(f"| {k} | {v:,} | {100 * v / usage.window:.1f}% |" for k, v in parts.items())
    return (
        f"## Context · {session.target.name}\n\n| part | tokens | of window |\n|---|---:|---:|\n{rows}\n"
        f"| **total** | **{total:,}** | **{100 * total / usage.window:.1f}%** |\n\n"
        f"Window {usage.window:,} · folds when the total reaches {usage.trigger:,} (the conversation alone "
        f"{usage.fold_at:,}: the gauge's 'fold at') · folds down to {usage.target:,}{_turns(usage)}"
        f"{_recalled_passages(session)}{_spent(session)}"
    )


def _turns(usage: Usage) -> str:
    """/context's turns left: the gauge's number, and what a typical recent turn takes that it counts in."""
    left = usage.turns_left
    if left is None:
        return ""
    turn = usage.turn
    return (
        f" · {turns_words(left)} (a recent turn takes {turn.exchange:,}, its prompt {turn.prompt:,}: the median "
        "of the last few)"
    )


def _spent(session: Session) -> str:
    """/context's cost: the conversation's total, with what caching saved, and its latest reply's request."""
    conversation = session.conversation_id
    per_reply = reply_usages(session.store, conversation) if conversation is not None else {}
    if not per_reply:
        return ""
    latest = per_reply[max(per_reply)]
    # numbers only (no text we did not write): safe in the Markdown this screen renders
    return f"\n\n### Cost\n\n{total_line(session.replies.usage_totals())}\n\nLatest reply: {reply_line(latest)}"


def _recalled_passages(session: Session) -> str:
    """/context's list of what recall added to the latest request (numbers, roles, days, sizes)."""
    recalled = session.replies.at_send.latest()
    if recalled is None:
        state = "on" if session.replies.at_send.on else "off (/recall on)"
        return f"\n\nRecall at every send is {state}; nothing was recalled for the latest message."
    # the words themselves are under the message (Enter opens them): a Markdown table would read them as markup
    rows = "\n".join(
        f"| #{p.number} | {p.role} | {p.day or '-'} | {'whole' if p.whole else 'matching lines'} |"
        for p in recalled.passages
    )
    return (
        f"\n\n### Recalled for the latest message ({recalled.tokens:,} tokens)\n\n"
        f"| message | role | day | part |\n|---|---|---|---|\n{rows}"
    )


def gauge_for(session: Session, usage: Usage, old: GaugeState, spent: UsageTotals | None) -> GaugeState:
    """The gauge for `usage`, keeping what is typed and the cost shown when `spent` is not read again."""
    cost, cached = (old.cost, old.cached_share) if spent is None else (spent.cost, spent.cached_share)
    return GaugeState(
        tokens=usage.tokens, window=usage.window, reserved=usage.reserved, trigger=usage.trigger, cost=cost,
        typing=old.typing, cached_share=cached, model=session.target.name, turns_left=usage.turns_left,
        fold_paused=old.fold_paused, recalled=usage.recalled, at_trigger=session.auto.at_trigger(usage),
    )  # fmt: skip
