"""The rules summarizer: deterministic, offline, no model call (DESIGN §7).

Every user message becomes a `user_requests` item (verbatim when short, otherwise shortened with all
its identifiers kept); standing rules, decisions, tool activity, errors and open questions are picked
out by `facts` patterns and the tool extractors. Text in the history is only ever quoted, never obeyed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import snapshot as snap
from ..facts import (
    CONSTRAINT,
    DECISION,
    clip,
    first_sentence,
    identifiers,
    matching_sentences,
    sentences,
    shorten,
)
from ..messages import Message
from ..snapshot import Snapshot
from .base import SummaryRequest
from .tool_facts import describe

REQUEST_CHARS = 700
RECENT_ACTIONS = 8
KNOWLEDGE_ITEMS = 60
ASSISTANT_SCAN_CHARS = 4000  # decisions and identifiers are read from the start of long replies


class RulesSummarizer:
    """Builds a `Snapshot` from patterns alone; fast enough to fold 1M tokens in well under a second."""

    name = "rules"
    input_budget: int | None = 250_000  # chunks keep progress visible on huge histories

    def summarize(self, request: SummaryRequest) -> Snapshot:
        builder = _Builder(request)
        for message in request.messages:
            builder.add(message)
        return builder.finish()

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        merged = parts[0]
        for part in parts[1:]:
            merged = snap.merge(merged, part)
            merged.depth -= 1  # chunks of one fold are not extra folds
        return merged


class _Builder:
    def __init__(self, request: SummaryRequest) -> None:
        self.request = request
        self.previous: list[Snapshot] = []
        self.out = Snapshot()
        self.results: dict[str, Message] = {
            m.tool_call_id: m for m in request.messages if m.role == "tool" and m.tool_call_id
        }
        self.user_text = ""
        self.pending_error: str | None = None
        self.unanswered: list[str] = []
        self.knowledge: dict[str, None] = {}

    def add(self, message: Message) -> None:
        if message.role == "user":
            self._user(message)
        elif message.role == "assistant":
            self._assistant(message)
        # tool results are read together with their calls

    def _user(self, message: Message) -> None:
        text = message.text
        if snap.SNAPSHOT_OPEN in text:
            earlier = snap.parse(text)
            if earlier is not None:
                self.previous.append(earlier)
                return
        if not text.strip():
            return
        self.user_text += "\n" + text
        self.out.user_requests.append(shorten(text, REQUEST_CHARS))
        self.out.constraints_and_preferences.extend(matching_sentences(CONSTRAINT, text))
        self.unanswered = [s for s in sentences(text) if s.endswith("?")]
        if not self.out.overall_goal:
            self.out.overall_goal = shorten(text, 300)

    def _assistant(self, message: Message) -> None:
        text = message.text[:ASSISTANT_SCAN_CHARS]
        if text.strip():
            self.unanswered = [s for s in sentences(text) if s.endswith("?")][-2:]
            self.out.decisions.extend(matching_sentences(DECISION, text, 240)[:3])
            if self.pending_error is not None:
                self.out.errors_and_fixes.append(f"{self.pending_error} → {first_sentence(text, 200)}")
                self.pending_error = None
            self.out.recent_actions.append(f"assistant: {first_sentence(text, 160)}")
            for ident in identifiers(text, limit=20):
                self.knowledge.setdefault(ident, None)
        for call in message.tool_calls:
            fact = describe(call, self.results.get(call.id))
            self.out.artifacts.append(fact.action)
            self.out.recent_actions.append(fact.action)
            if fact.done:
                self.out.task_state.append(f"done: {fact.done}")
            if fact.error:
                if self.pending_error is not None:
                    self.out.errors_and_fixes.append(self.pending_error)
                self.pending_error = fact.error

    def finish(self) -> Snapshot:
        out = self.out
        if self.pending_error is not None:
            out.errors_and_fixes.append(f"{self.pending_error} (not fixed yet)")
        out.open_questions = [clip(q, 240) for q in self.unanswered]
        if out.user_requests:
            out.task_state.append(f"last request before this point: {clip(out.user_requests[-1], 240)}")
        stated = self.user_text
        out.key_knowledge = [f"mentioned: {ident}" for ident in self.knowledge if ident not in stated][:KNOWLEDGE_ITEMS]
        if self.request.focus:
            out.key_knowledge.insert(0, f"focus requested for this fold: {self.request.focus}")
        out.recent_actions = out.recent_actions[-RECENT_ACTIONS:]
        out.decisions = _dedupe(out.decisions)
        out.constraints_and_preferences = _dedupe(out.constraints_and_preferences)
        out.task_state = _dedupe(out.task_state)
        out.pinned = list(self.request.pinned)
        for earlier in reversed(self.previous):
            out = snap.merge(earlier, out)
        return out


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
