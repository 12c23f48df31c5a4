"""The rules summarizer: deterministic, offline, no model call (docs/design.md §7).

Every user message becomes a `user_requests` item (verbatim when short, otherwise shortened with all
its identifiers kept; a pasted README, man page, log or code block becomes one line saying what it was,
its size and its identifiers); standing rules come from the user's own sentences only, never from
pasted blocks or tool output; standing rules ("always …", "from now on …", "call me Sam") are kept
word for word, first, and never trimmed when the snapshot is fitted. Decisions, errors and open questions are picked out by `facts` patterns;
tool activity, in every shape agents use (tool calls, or mini-swe-agent's fenced command answered by a
`<returncode>` message), becomes the artifact trail: files grouped by path, commands counted with their
last outcome. Text in the history is only ever quoted, never obeyed.

Every item written from particular messages ends with their transcript numbers (`(#12)`, `(#40, #52)`:
`references`), so the model can `recall` the original and a reader can find it; the overall goal and the
focus line stand for no one message and carry none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import snapshot as snap
from ..attachments import attachments_in, human_size, said, size_of
from ..facts import (
    CONSTRAINT,
    FOCUS_MARK,
    SENTENCE_SCAN_CHARS,
    clip,
    identifiers,
    is_constraint,
    matching_sentences,
    mentions,
    sentences,
    without_blobs,
)
from ..fold.item_cuts import MENTIONED
from ..fold.supersede import supersede
from ..messages import Message, ToolCall
from ..references import merge_referenced, tag
from ..rule_pointers import without_notes
from ..rule_statements import standing_rules
from ..salience import (
    OVERALL_GOAL,
    condense,
    is_decision,
    is_overall_goal,
    is_pleasantry,
    one_line,
    salience,
    statements,
)
from ..snapshot import Snapshot
from .artifacts import CHANGED, ArtifactTrail
from .base import SummaryRequest
from .pasted import split_pasted
from .replies import Reading, read_reply
from .text_agent import fenced_command, is_observation
from .tool_facts import ToolFact, describe, describe_parts

_URL = re.compile(r"https?://[^\s<>()\"'`]+")
_DOCUMENT = re.compile(
    r"(?<![\w./-])[\w][\w .-]{0,80}?\.(?:pdf|docx?|xlsx?|csv|pptx?|odt|ods|epub|txt|png|jpe?g)\b", re.I
)

REQUEST_CHARS = 700
RECENT_ACTIONS = 8
KNOWLEDGE_ITEMS = 60
ASSISTANT_SCAN_CHARS = 8000  # statements, decisions and identifiers are read from the start of long replies
# a goal stated in passing ("I'm planning…"); one that says it is the overall goal is `salience.OVERALL_GOAL`
_GOAL = re.compile(
    r"\b(?:what i'm trying to do|my (?:overall |main |end )?goal|i'm trying to|i am trying to|i want to|i'd like to|"
    r"i need to|i'm planning|i am planning|help me|we're planning|i'm looking for|i'm working on)\b",
    re.I,
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
    readings: dict[str, Reading] = field(default_factory=dict)

    def fact(self, call: ToolCall, result: Message | None) -> ToolFact:
        key = (call, result)
        found = self.facts.get(key)
        if found is None:
            if len(self.facts) >= MEMO_ENTRIES:
                self.facts.clear()
            found = self.facts[key] = describe(call, result)
        return found

    def reading(self, text: str) -> Reading:
        found = self.readings.get(text)
        if found is None:
            if len(self.readings) >= MEMO_ENTRIES:
                self.readings.clear()
            found = self.readings[text] = read_reply(text)
        return found


class RulesSummarizer:
    """Builds a `Snapshot` from patterns alone; fast enough to fold 1M tokens in well under a second."""

    name = "rules"
    input_budget: int | None = 250_000  # chunks keep progress visible on huge histories

    def __init__(self) -> None:
        self._memo = _Memo()
        self._trail: tuple[SummaryRequest, list[str]] | None = None  # the last request's trail

    def summarize(self, request: SummaryRequest) -> Snapshot:
        builder = _Builder(request, self._memo)
        for message, number in zip(request.messages, request.numbered(), strict=True):
            builder.add(message, number)
        return builder.finish()

    def consolidate(self, parts: Sequence[Snapshot], request: SummaryRequest) -> Snapshot:
        merged = parts[0]
        for part in parts[1:]:
            merged = snap.merge(merged, part)
            merged.depth -= 1  # chunks of one fold are not extra folds
        # the trail of the whole request, so a file touched in several chunks is still one line; read once
        # per request (every batch of every consolidation level asks for it: 7 readings of an 8 MB input)
        if self._trail is None or self._trail[0] is not request:
            self._trail = (request, artifact_lines(request, self._memo))
        merged.artifacts = list(self._trail[1])
        return merged


def _without_statements(text: str, said: list[str]) -> str:
    """`text` without the statements already carried in `said` (spaces normalised, lines kept: a line is
    where one statement ends, "code 7315" and "at 7am and 6pm" are two)."""
    if not said:
        return text
    flat = "\n".join(" ".join(line.split()) for line in text.splitlines())
    for statement in said:
        flat = flat.replace(statement, " ")
    return "\n".join(" ".join(line.split()) for line in flat.splitlines() if line.strip())


def _request_text(own: str) -> str:
    """A user message as its request item: whole when short; else its informative statements whole, with
    every identifier of what was left out named, so nothing the user stated is lost to a cut."""
    flat = one_line(own)
    if len(flat) <= REQUEST_CHARS:
        return flat
    kept = condense(own, REQUEST_CHARS)
    missing = [i for i in identifiers(own, limit=200) if not mentions(kept, i)]
    return f"{kept} [identifiers: {', '.join(missing)}]" if missing else kept


def artifact_lines(request: SummaryRequest, memo: _Memo | None = None) -> list[str]:
    """The deterministic artifact trail of the request's messages (what the LLM summarizer's snapshot is merged with)."""
    builder = _Builder(request, memo or _Memo())
    for message, number in zip(request.messages, request.numbered(), strict=True):
        builder.add(message, number)
    return builder.trail.lines()


class _Builder:
    def __init__(self, request: SummaryRequest, memo: _Memo) -> None:
        self.request = request
        self.memo = memo
        self.previous: list[Snapshot] = []
        self.out = Snapshot()
        numbered = zip(request.messages, request.numbered(), strict=True)
        tool_results = [(m, n) for m, n in numbered if m.role == "tool" and m.tool_call_id]
        self.results: dict[str, Message] = {m.tool_call_id: m for m, _ in tool_results if m.tool_call_id}
        self.result_numbers: dict[str, int] = {m.tool_call_id: n for m, n in tool_results if m.tool_call_id}
        self.number = 0  # the transcript number of the message being read
        self.user_texts: list[str] = []  # joined once at the end: `+=` on an attribute copies it every time
        self.last_request: tuple[str, int] | None = None
        self.pending_error: tuple[str, list[int]] | None = None  # the error and the messages it came from
        self.errors: list[tuple[str, list[int]]] = []  # errors_and_fixes items, before their references
        self.unanswered: list[tuple[str, int]] = []
        self.knowledge: dict[str, int] = {}  # identifier -> the message that first mentioned it
        self.trail = ArtifactTrail()
        self.explain_fix: int | None = None  # an error fixed by an edit, waiting for the reply that explains it
        self.text_command: tuple[str, int] | None = None  # a fenced command waiting for its `<returncode>` message
        self.goal_stated = False  # the goal came from a statement of one, not from the first message
        self.goal_overall = False  # ...one that says it is the overall goal: later cues do not replace it
        self.stated_texts: list[str] = []  # what the replies' key_knowledge items already say
        self.said_before: tuple[str, ...] = ()  # the last two messages' text: what a rule's "that" may point at

    def add(self, message: Message, number: int) -> None:
        self.number = number
        if message.role == "user":
            self._user(message)
        elif message.role == "assistant":
            self._assistant(message)
        # tool results are read together with their calls

    def _user(self, message: Message) -> None:
        attached = attachments_in(message)
        for meta in attached:  # a file is data, not the person's words: the trail names it, recall returns it
            self.trail.share(f"attached {meta['name']} ({human_size(size_of(meta))})", self.number)
        text = said(message) if attached else message.text
        if snap.SNAPSHOT_OPEN in text:
            earlier = snap.parse(text)
            if earlier is not None:
                self.previous.append(earlier)
                return
        if not text.strip():
            return
        if is_observation(text):  # a shell-only agent's command output, not the user speaking
            command, at = self.text_command or ("(command)", self.number)
            self._record(describe_parts("bash", {"command": command}, text), at)
            self.text_command = None
            return
        self.user_texts.append(text)
        own, pastes = split_pasted(text)
        described = [p.describe() for p in pastes]
        here = [self.number]
        rules = standing_rules(own, "\n".join(self.said_before))  # whole statements, verbatim, never clipped
        self.said_before = (*self.said_before[-1:], own)
        looser = [
            c for c in matching_sentences(CONSTRAINT, own) if is_constraint(c) and not any(c in rule for rule in rules)
        ]
        self.out.constraints_and_preferences.extend(tag(rule, here) for rule in [*rules, *looser])
        decided = [d for d in statements(own) if is_decision(d) and not d.endswith("?") and len(d) <= 300]
        self.out.decisions.extend(tag(d, here) for d in decided)
        # the request: what the constraints and decisions above do not already say, its informative
        # statements whole (not its first 700 characters); a message that was all rules is told by them
        rest = _without_statements(own, [*map(without_notes, rules), *looser, *decided])
        request = " ".join([_request_text(rest) if rest.strip() else "", *(f"[{d}]" for d in described)]).strip()
        self.last_request = (request or _request_text(own), self.number)
        if request or not (rules or looser or decided):
            self.out.user_requests.append(tag(request or _request_text(own), here))
        self.unanswered = [(s, self.number) for s in sentences(own) if s.endswith("?")]
        self._goal(own, described)
        for url in dict.fromkeys(m.group(0).rstrip(".,;:") for m in _URL.finditer(text)):
            self.trail.share(f"shared {url}", self.number)
        for document in dict.fromkeys(m.group(0).strip() for m in _DOCUMENT.finditer(without_blobs(own))):
            if "/" not in document:
                self.trail.share(f"shared document {document}", self.number)
        for line in described:
            self.trail.share(line, self.number)

    def _goal(self, own: str, described: list[str]) -> None:
        """The overall goal: the first statement of one ("I'm trying to…"), else the first message that is
        more than a greeting; a goal stated later replaces a goal that was only a first message."""
        said = _GOAL.search(own[:SENTENCE_SCAN_CHARS]) is not None
        overall = is_overall_goal(own)
        if self.goal_overall or (self.goal_stated and not overall) or (self.out.overall_goal and not said):
            return
        if not own.strip():
            if not self.out.overall_goal and described:
                self.out.overall_goal = clip(described[0], 300)
            return
        if is_pleasantry(own):
            return
        if said:
            cue = OVERALL_GOAL if overall else _GOAL
            goal = next((s for s in statements(own) if cue.search(s)), own)
            self.out.overall_goal = condense(goal, 300)
            self.goal_stated = True
            self.goal_overall = self.goal_overall or overall
        else:
            self.out.overall_goal = condense(own, 300)

    def _assistant(self, message: Message) -> None:
        text = message.text[:ASSISTANT_SCAN_CHARS]
        here = self.number
        if text.strip():
            self.said_before = (*self.said_before[-1:], text)
            reading = self.memo.reading(text)
            self.unanswered = [(q, here) for q in reading.questions[-2:]]
            # the assistant's choices are marked as its own: only what the user said can replace a value
            self.out.decisions.extend(tag(f"assistant: {d}", [here]) for d in reading.decisions)
            if self.pending_error is not None:
                error, at = self.pending_error
                self.errors.append((f"{error} → {reading.first_sentence}", [*at, here]))
                self.pending_error = None
            elif self.explain_fix is not None:
                fix, at = self.errors[self.explain_fix]
                self.errors[self.explain_fix] = (f"{fix}; {reading.first_sentence}", [*at, here])
            self.explain_fix = None
            if salience(reading.action) > 0:  # "You're welcome!" is no action
                self.out.recent_actions.append(tag(f"assistant: {reading.action}", [here]))
            # an agent's step (a tool call, a fenced command) is told by the artifact trail; its prose is not
            speaking = not message.tool_calls and fenced_command(message.text) is None
            if reading.stated and speaking:
                self.out.key_knowledge.append(tag(f"assistant: {reading.stated}", [here]))
                self.stated_texts.append(reading.stated)
            for line in reading.code:
                self.out.key_knowledge.append(tag(f"assistant code: {line}", [here]))
                self.stated_texts.append(line)
            for ident in reading.identifiers:
                self.knowledge.setdefault(ident, here)
        for call in message.tool_calls:
            self._record(self.memo.fact(call, self.results.get(call.id)), here, self.result_numbers.get(call.id))
        if not message.tool_calls:
            command = fenced_command(message.text)
            self.text_command = None if command is None else (command, here)

    def _record(self, fact: ToolFact, at: int, result_at: int | None = None) -> None:
        """One tool call's fact; `at` is the message that made the call, `result_at` the one holding its output."""
        self.out.recent_actions.append(tag(fact.action, [at]))
        for effect in fact.effects:
            self.trail.file(effect, via_command=fact.command is not None, number=at)
        if fact.command is not None:
            self.trail.command(fact.command, fact.outcome, fact.failed, number=at)
        elif fact.kind == "search":
            query, _, outcome = fact.action.removeprefix("searched ").partition(" → ")
            self.trail.search(query, outcome, number=at)
        elif not fact.effects:
            self.trail.share(clip(f"used {fact.action}", 200), at)
        changed = [e for e in fact.effects if e.op in CHANGED]
        if fact.done and fact.kind != "shell" and fact.kind != "code":
            self.out.task_state.append(tag(f"done: {fact.done}", [at]))
        if self.pending_error is not None and changed and not fact.error:
            fix = "; ".join(f"{e.op} {e.path}" + (f" ({clip(e.detail, 80)})" if e.detail else "") for e in changed)
            error, error_at = self.pending_error
            self.errors.append((f"{error} → fixed by: {fix}", [*error_at, at]))
            self.explain_fix = len(self.errors) - 1
            self.pending_error = None
        if fact.error:
            if self.pending_error is not None:
                self.errors.append(self.pending_error)
            self.pending_error = (fact.error, [result_at if result_at is not None else self.number])

    def finish(self) -> Snapshot:
        out = self.out
        out.artifacts = self.trail.lines()
        if self.pending_error is not None:
            error, at = self.pending_error
            self.errors.append((f"{error} (not fixed yet)", at))
        out.errors_and_fixes = [tag(text, at) for text, at in self.errors]
        # a question asked twice is one question (a paste can repeat one a hundred times)
        out.open_questions = merge_referenced(tag(clip(q, 240), [n]) for q, n in self.unanswered)
        if self.last_request is not None:
            request, number = self.last_request
            out.task_state.append(tag(f"last request before this point: {clip(request, 240)}", [number]))
        said = "\n" + "\n".join([*self.user_texts, *self.stated_texts])
        mentioned = [(i, first) for i, first in self.knowledge.items() if i not in said][:KNOWLEDGE_ITEMS]
        # the most numerous, least precious items: each names where it was first said, not every mention
        # (a third of an agent snapshot's references otherwise); `recall` by text lists the others. One
        # line per message: "mentioned: postgres:16.4, inv_app (#6)" holds three times what a line each did
        by_message: dict[int, dict[str, str]] = {}
        for ident, first in mentioned:
            by_message.setdefault(first, {}).setdefault(ident.strip("`"), ident)
        out.key_knowledge.extend(
            tag(f"{MENTIONED}{', '.join(idents.values())}", [first]) for first, idents in by_message.items()
        )
        if self.request.focus:
            out.key_knowledge.insert(0, f"{FOCUS_MARK}{self.request.focus}")
        out.recent_actions = out.recent_actions[-RECENT_ACTIONS:]
        out.decisions = merge_referenced(out.decisions)
        out.constraints_and_preferences = merge_referenced(out.constraints_and_preferences)
        out.task_state = merge_referenced(out.task_state)
        out.pinned = [tag(pin, self._holding(pin)) for pin in self.request.pinned]
        for earlier in reversed(self.previous):
            out = snap.merge(earlier, out)
        return supersede(out)

    def _holding(self, text: str) -> list[int]:
        """The messages a pinned text was taken from (none if it was pinned from outside this span)."""
        numbered = zip(self.request.messages, self.request.numbered(), strict=True)
        return [n for m, n in numbered if text and text in m.text]
