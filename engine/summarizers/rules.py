"""The rules summarizer: deterministic, offline, no model call (DESIGN §7).

Every user message becomes a `user_requests` item (verbatim when short, otherwise shortened with all
its identifiers kept; a pasted README, man page, log or code block becomes one line saying what it was,
its size and its identifiers); standing rules come from the user's own sentences only, never from
pasted blocks or tool output; standing rules ("always …", "from now on …", "call me Sam") are kept
word for word, first, and never trimmed when the snapshot is fitted. Decisions, errors and open questions are picked out by `facts` patterns;
tool activity, in every shape agents use (tool calls, or mini-swe-agent's fenced command answered by a
`<returncode>` message), becomes the artifact trail: files grouped by path, commands counted with their
last outcome. Text in the history is only ever quoted, never obeyed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

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
    standing_rules,
    without_blobs,
)
from ..messages import Message, ToolCall
from ..snapshot import Snapshot
from .artifacts import CHANGED, ArtifactTrail
from .base import SummaryRequest
from .pasted import split_pasted
from .text_agent import fenced_command, is_observation
from .tool_facts import ToolFact, describe, describe_parts

_URL = re.compile(r"https?://[^\s<>()\"'`]+")
_DOCUMENT = re.compile(
    r"(?<![\w./-])[\w][\w .-]{0,80}?\.(?:pdf|docx?|xlsx?|csv|pptx?|odt|ods|epub|txt|png|jpe?g)\b", re.I
)

REQUEST_CHARS = 700
RECENT_ACTIONS = 8
KNOWLEDGE_ITEMS = 60
ASSISTANT_SCAN_CHARS = 4000  # decisions and identifiers are read from the start of long replies


@dataclass(frozen=True)
class _Reading:
    """What the rules read from an assistant reply's text: a pure function of that text."""

    questions: tuple[str, ...]
    decisions: tuple[str, ...]
    first_sentence: str
    action: str
    identifiers: tuple[str, ...]


def _read(text: str) -> _Reading:
    return _Reading(
        questions=tuple(s for s in sentences(text) if s.endswith("?")),
        decisions=tuple(matching_sentences(DECISION, text, 240)[:3]),
        first_sentence=first_sentence(text, 200),
        action=first_sentence(text, 160),
        identifiers=tuple(identifiers(text, limit=20)),
    )


MEMO_ENTRIES = 20_000  # a bound on what one summarizer remembers; it is cleared, never evicted piecemeal


@dataclass
class _Memo:
    """Per-summarizer cache of the pure, per-message readings.

    A fold reads the same messages several times: every chunk, the whole request's artifact trail when
    chunks are consolidated, and the wider split that re-summarizes a prefix of the same head. Tool facts
    and reply readings depend on nothing but their inputs, so each is computed once per summarizer.
    """

    facts: dict[tuple[ToolCall, Message | None], ToolFact] = field(default_factory=dict)
    readings: dict[str, _Reading] = field(default_factory=dict)

    def fact(self, call: ToolCall, result: Message | None) -> ToolFact:
        key = (call, result)
        found = self.facts.get(key)
        if found is None:
            if len(self.facts) >= MEMO_ENTRIES:
                self.facts.clear()
            found = self.facts[key] = describe(call, result)
        return found

    def reading(self, text: str) -> _Reading:
        found = self.readings.get(text)
        if found is None:
            if len(self.readings) >= MEMO_ENTRIES:
                self.readings.clear()
            found = self.readings[text] = _read(text)
        return found


class RulesSummarizer:
    """Builds a `Snapshot` from patterns alone; fast enough to fold 1M tokens in well under a second."""

    name = "rules"
    input_budget: int | None = 250_000  # chunks keep progress visible on huge histories

    def __init__(self) -> None:
        self._memo = _Memo()

    def summarize(self, request: SummaryRequest) -> Snapshot:
        builder = _Builder(request, self._memo)
        for message in request.messages:
            builder.add(message)
        return builder.finish()

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        merged = parts[0]
        for part in parts[1:]:
            merged = snap.merge(merged, part)
            merged.depth -= 1  # chunks of one fold are not extra folds
        # the trail of the whole request, so a file touched in several chunks is still one line
        merged.artifacts = artifact_lines(request.messages, self._memo)
        return merged


def artifact_lines(messages: Sequence[Message], memo: _Memo | None = None) -> list[str]:
    """The deterministic artifact trail of `messages` (what the LLM summarizer's snapshot is merged with)."""
    builder = _Builder(SummaryRequest(messages), memo or _Memo())
    for message in messages:
        builder.add(message)
    return builder.trail.lines()


class _Builder:
    def __init__(self, request: SummaryRequest, memo: _Memo) -> None:
        self.request = request
        self.memo = memo
        self.previous: list[Snapshot] = []
        self.out = Snapshot()
        self.results: dict[str, Message] = {
            m.tool_call_id: m for m in request.messages if m.role == "tool" and m.tool_call_id
        }
        self.user_text = ""
        self.pending_error: str | None = None
        self.unanswered: list[str] = []
        self.knowledge: dict[str, None] = {}
        self.trail = ArtifactTrail()
        self.explain_fix: int | None = None  # an error fixed by an edit, waiting for the reply that explains it
        self.text_command: str | None = None  # a fenced command waiting for its `<returncode>` message

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
        if is_observation(text):  # a shell-only agent's command output, not the user speaking
            self._record(describe_parts("bash", {"command": self.text_command or "(command)"}, text))
            self.text_command = None
            return
        self.user_text += "\n" + text
        own, pastes = split_pasted(text)
        described = [p.describe() for p in pastes]
        request = shorten(own, REQUEST_CHARS) if own.strip() else ""
        self.out.user_requests.append(" ".join([request, *(f"[{d}]" for d in described)]).strip())
        self.out.constraints_and_preferences.extend(standing_rules(own))  # verbatim, never clipped
        self.out.constraints_and_preferences.extend(matching_sentences(CONSTRAINT, own))
        self.unanswered = [s for s in sentences(own) if s.endswith("?")]
        if not self.out.overall_goal:
            self.out.overall_goal = shorten(own, 300) if own.strip() else clip(described[0], 300)
        for url in dict.fromkeys(m.group(0).rstrip(".,;:") for m in _URL.finditer(text)):
            self.trail.share(f"shared {url}")
        for document in dict.fromkeys(m.group(0).strip() for m in _DOCUMENT.finditer(without_blobs(own))):
            if "/" not in document:
                self.trail.share(f"shared document {document}")
        for line in described:
            self.trail.share(line)

    def _assistant(self, message: Message) -> None:
        text = message.text[:ASSISTANT_SCAN_CHARS]
        if text.strip():
            reading = self.memo.reading(text)
            self.unanswered = list(reading.questions[-2:])
            self.out.decisions.extend(reading.decisions)
            if self.pending_error is not None:
                self.out.errors_and_fixes.append(f"{self.pending_error} → {reading.first_sentence}")
                self.pending_error = None
            elif self.explain_fix is not None:
                self.out.errors_and_fixes[self.explain_fix] += f"; {reading.first_sentence}"
            self.explain_fix = None
            self.out.recent_actions.append(f"assistant: {reading.action}")
            for ident in reading.identifiers:
                self.knowledge.setdefault(ident, None)
        for call in message.tool_calls:
            self._record(self.memo.fact(call, self.results.get(call.id)))
        if not message.tool_calls:
            self.text_command = fenced_command(message.text)

    def _record(self, fact: ToolFact) -> None:
        self.out.recent_actions.append(fact.action)
        for effect in fact.effects:
            self.trail.file(effect, via_command=fact.command is not None)
        if fact.command is not None:
            self.trail.command(fact.command, fact.outcome, fact.failed)
        elif fact.kind == "search":
            query, _, outcome = fact.action.removeprefix("searched ").partition(" → ")
            self.trail.search(query, outcome)
        elif not fact.effects:
            self.trail.share(clip(f"used {fact.action}", 200))
        changed = [e for e in fact.effects if e.op in CHANGED]
        if fact.done and fact.kind != "shell" and fact.kind != "code":
            self.out.task_state.append(f"done: {fact.done}")
        if self.pending_error is not None and changed and not fact.error:
            fix = "; ".join(f"{e.op} {e.path}" + (f" ({clip(e.detail, 80)})" if e.detail else "") for e in changed)
            self.out.errors_and_fixes.append(f"{self.pending_error} → fixed by: {fix}")
            self.explain_fix = len(self.out.errors_and_fixes) - 1
            self.pending_error = None
        if fact.error:
            if self.pending_error is not None:
                self.out.errors_and_fixes.append(self.pending_error)
            self.pending_error = fact.error

    def finish(self) -> Snapshot:
        out = self.out
        out.artifacts = self.trail.lines()
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
