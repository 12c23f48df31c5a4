"""A person's standing rules, whole: each rule sentence with what it cannot be read without.

"Budget cap is $500 total. Never exceed without explicit approval." is one rule with its $500; "keep that
in mind" takes what it points at; "treat it as a hard limit" holds to the limit stated before it.
"""

from __future__ import annotations

import re

from .facts import LABEL, RULE_CHARS, SENTENCE_SCAN_CHARS, asks, is_question, sentences, states_rule
from .rule_pointers import pointed, pointer_word

# a rule that points back at what was just said ("please remember that one", "put that on your radar")
_POINTS_BACK = re.compile(
    r"\b(?:remember (?:that|this|it)|keep (?:it|this|that)(?: [\w-]+){0,2} (?:in mind|handy)|on your radar|"
    r"don't forget (?:that|it|this)|(?:that|this|same) (?:goes|applies) for)\b",
    re.I,
)
LABEL_LEAD_CHARS = 25  # a label followed by this little ("important: her thyroid pill.") takes the next sentence


def standing_rules(text: str, said_before: str = "") -> list[str]:
    """The user's standing instructions, constraints and preferences in `text`, in order, whole (`_rules_in`);
    a rule whose "that" points at a value said before it (in `text`, or in `said_before`: what the messages
    just before it said) notes the value, or that it needs a look (`rule_pointers.pointed`)."""
    rules, said = _rules_in(text)
    if not any(pointer_word(rule) for rule in rules):
        return rules
    earlier = sentences(said_before[-SENTENCE_SCAN_CHARS:]) if said_before else []
    out = []
    for rule in rules:
        start = next((i for i, sentence in enumerate(said) if rule.startswith(sentence)), len(said))
        out.append(pointed(rule, [*earlier, *said[:start]]))
    return out


def _rules_in(text: str) -> tuple[list[str], list[str]]:
    """The rules of `text` (see `standing_rules`) and every sentence of it, in order, flattened.

    The unit is the sentence, kept whole with what it needs of the sentences before it: one that has no
    value of its own takes the one before when that one does ("Budget cap is $500 total. Never exceed
    without explicit approval." stays one rule with its $500); one that points back ("keep that format in
    mind", "please remember that one", "put that on your radar") takes what it points at, the sentences
    before it in the message as far as `RULE_CHARS` allows; one with no value that says "it" or "that"
    ("treat it as a hard limit") holds to the message's last rule, across a question (`_holds_to_last`);
    a bare label ("most important thing:") takes the sentence after it. A question ("do you always …?") sets nothing, a request phrased as one ("can you
    always …?") does; sentences longer than `RULE_CHARS` are not rules. Whitespace is normalised."""
    rules: list[str] = []
    said: list[str] = []  # every sentence so far
    before: list[str] = []  # the message's sentences so far, since its last question
    since: list[str] = []  # the sentences since the last rule, questions too
    lead = False  # the last rule was a bare label: this sentence is what it labels
    for line in text.splitlines():
        line_start = len(before)
        for sentence in sentences(line):
            flat = " ".join(sentence.split()).lstrip("-*• ")
            said.append(flat)
            if lead and len(joined := f"{rules[-1]} {flat}") <= RULE_CHARS:
                rules[-1], lead = joined, False
                before.append(flat)
                continue
            lead = False
            since.append(flat)
            if len(flat) <= RULE_CHARS and not asks(flat) and states_rule(flat):
                taken = _what_it_needs(flat, before, line_start)
                joined = " ".join([*taken, flat])
                while taken and rules and rules[-1] in joined:  # a rule it takes in is one rule with it
                    rules.pop()
                if taken and rules and taken[0] in rules[-1]:  # it continues the last rule
                    rules[-1] = " ".join([rules[-1], *taken[1:], flat])
                elif not taken and rules and _holds_to_last(flat, rules[-1], since):
                    rules[-1] = " ".join([rules[-1], *since])
                else:
                    rules.append(joined)
                since = []
                label = LABEL.match(flat)
                lead = label is not None and len(flat) - label.end() < LABEL_LEAD_CHARS
            if is_question(flat):
                before, line_start = [], 0
            else:
                before.append(flat)
    return rules, said


def _what_it_needs(rule: str, before: list[str], line_start: int) -> list[str]:
    """The sentences just before `rule` that it cannot be read without (see `standing_rules`); a value is
    borrowed from the sentence before in the same line (`before[line_start:]`) only."""
    pointer = _POINTS_BACK.search(rule)
    if pointer and not _says_itself(rule[: pointer.start()]):
        taken: list[str] = []
        size = len(rule)
        for sentence in reversed(before):
            size += len(sentence) + 1
            if size > RULE_CHARS:
                break
            taken.insert(0, sentence)
        return taken
    previous = before[-1] if len(before) > line_start else ""
    fits = len(previous) + len(rule) < RULE_CHARS
    return [previous] if fits and _HAS_NUMBER.search(previous) and not _HAS_NUMBER.search(rule) else []


_HAS_NUMBER = re.compile(r"\d")
_PRONOUN = re.compile(r"\b(?:it|that|this)\b", re.I)


def _holds_to_last(rule: str, last: str, since: list[str]) -> bool:
    """ "Keep sodium under 2,000 mg a day. Can you keep my portions under that? Treat it as a hard limit."
    The rule with no value of its own holds to the message's last rule that has one, across a question;
    a few words pointing back ("that's non negotiable") hold to the last rule, whatever it states."""
    return (
        _PRONOUN.search(rule) is not None
        and not _HAS_NUMBER.search(rule)
        # "that's non negotiable sorry" says nothing alone, whatever the rule before it holds
        and (_HAS_NUMBER.search(last) is not None or len(rule.split()) < SELF_STATED_WORDS)
        and len(last) + sum(len(s) + 1 for s in since) <= RULE_CHARS
    )


SELF_STATED_WORDS = 6


def _says_itself(head: str) -> bool:
    """ "my notice period is 8 weeks, so keep that in mind" points at its own words, not the lines before."""
    return _HAS_NUMBER.search(head) is not None or len(head.split()) >= SELF_STATED_WORDS
