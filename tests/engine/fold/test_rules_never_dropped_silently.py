"""A standing rule is never dropped silently: 300 look-alike rules were read as updates of one another,
lost their protection, and all but 16 were cut from the snapshot without the "not carried" notice."""

from __future__ import annotations

import pytest
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import parse_messages
from foldchat.engine.references import body
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter

TICKETS = "From now on, always reply to ticket T-{n} in formal English."
TEAMS = "Change of plan: always sign emails as Team {n}."


def fold(rule: str, window: int):
    raw = []
    for n in range(300):
        raw += [{"role": "user", "content": rule.format(n=n)}, {"role": "assistant", "content": "Understood."}]
    raw.append({"role": "user", "content": "Now summarise."})
    request = FoldRequest(counter=LiteLLMCounter("gpt-4o"), window=window, summarizer=RulesSummarizer(), force=True)
    return fold_context(parse_messages(raw), request)


@pytest.mark.parametrize("rule", [TICKETS, TEAMS])
@pytest.mark.parametrize("window", [8_000, 16_000])
def test_every_folded_rule_is_carried_or_named(rule, window):
    result = fold(rule, window)
    assert result.snapshot is not None
    tail = {m.text for m in result.messages if not m.is_snapshot}
    folded = [rule.format(n=n) for n in range(300) if rule.format(n=n) not in tail]
    assert len(folded) > 100
    carried = " ".join(result.snapshot.constraints_and_preferences)
    named = " ".join(body(item) for item in result.report.rules_not_carried)
    silent = [r for r in folded if r not in carried and r not in named]
    assert silent == [], f"{len(silent)} dropped without a word, e.g. {silent[:2]}"


def test_rules_about_different_tickets_are_not_updates_of_one_another():
    result = fold(TICKETS, 16_000)
    assert result.snapshot is not None
    assert not [r for r in result.snapshot.constraints_and_preferences if "[replaced" in r or "[current" in r]
