"""What the rules summarizer reads from an assistant's reply: a pure function of its text (questions,
decisions, what it stated that someone may rely on, the definition lines of its code blocks)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..facts import DECISION, clip, first_sentence, identifiers, matching_sentences, sentences
from ..salience import carries_value, condense, joined, plain, salience, statements

STATED_CHARS = 500  # what one reply's statements may take in key_knowledge before the fit weighs them
CODE_FACTS = 6  # definition lines kept from one reply's code blocks
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.S)
_DEFINITION = re.compile(
    r"^\s*(?:(?:async )?def \w+|class \w+|CREATE (?:TABLE|INDEX|VIEW|DATABASE)\b|ALTER TABLE\b|export \w+=|"
    r"[A-Z][A-Z0-9_]{2,}\s*=|.*\bport\s*[=:]\s*\d+|@app\.\w+\(|pip install |npm install |FROM \w)",
    re.M,
)


@dataclass(frozen=True)
class Reading:
    """What the rules read from an assistant reply's text: a pure function of that text."""

    questions: tuple[str, ...]
    decisions: tuple[str, ...]
    first_sentence: str
    action: str
    identifiers: tuple[str, ...]
    stated: str  # what the reply stated that someone may rely on later, whole statements, best first kept
    code: tuple[str, ...]  # definition lines of its code blocks (functions, tables, variables, ports)


def read_reply(text: str) -> Reading:
    prose = _FENCE.sub(" ", text)
    return Reading(
        questions=tuple(s for s in sentences(prose) if s.endswith("?")),
        decisions=tuple(d for d in matching_sentences(DECISION, plain(prose), 240) if not d.endswith("?"))[:3],
        first_sentence=first_sentence(text, 200),
        action=first_sentence(text, 160),
        identifiers=tuple(identifiers(text, limit=20)),
        stated=stated(prose, STATED_CHARS),
        code=tuple(_code_facts(text)),
    )


def stated(text: str, limit: int) -> str:
    """The statements of `text` that carry a value (facts, numbers, names, choices), the most informative
    first within `limit` characters, put back in their order; questions and pleasantries are not stated."""
    kept = [s for s in statements(plain(text)) if not s.endswith("?") and carries_value(s) and salience(s) > 0]
    return condense(joined(kept), limit) if kept else ""


def _code_facts(text: str) -> list[str]:
    lines: list[str] = []
    for block in _FENCE.findall(text):
        for match in _DEFINITION.finditer(block):
            start = match.end() - len(match.group(0).lstrip())  # `^\s*` may have begun on a blank line above
            line = match.group(0) if match.group(0).strip().endswith(("=", ":")) else _whole_line(block, start)
            lines.append(clip(line.strip(), 120))
            if len(lines) >= CODE_FACTS:
                return list(dict.fromkeys(lines))
    return list(dict.fromkeys(lines))


def _whole_line(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[at : end if end >= 0 else len(text)]
