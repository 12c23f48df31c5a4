from dataclasses import fields

import pytest
from foldchat.engine.errors import UsageError
from foldchat.engine.policy import FoldHistory, FoldPolicy, Trigger, decide

P = FoldPolicy()


def test_triggers_at_ratio_and_not_below():
    assert not decide(P, usage=79, window=100, message_count=10).fold
    d = decide(P, usage=80, window=100, message_count=10)
    assert d.fold and d.trigger is Trigger.AUTO


def test_fixed_token_trigger_wins_when_lower():
    p = FoldPolicy(trigger_tokens=50)
    assert p.trigger_at(100) == 50
    assert decide(p, usage=50, window=100, message_count=10).fold


def test_min_messages_blocks_automatic_folds_but_not_emergencies():
    assert not decide(P, usage=90, window=100, message_count=2).fold
    assert decide(P, usage=100, window=100, message_count=2).trigger is Trigger.EMERGENCY


def test_hysteresis_and_cooldown():
    recent = FoldHistory(folded=True, messages_since=1, dropped_below_reset=True)
    assert "cooldown" in decide(P, usage=85, window=100, message_count=10, history=recent).reason
    stuck = FoldHistory(folded=True, messages_since=10, dropped_below_reset=False)
    assert not decide(P, usage=85, window=100, message_count=10, history=stuck).fold
    ready = FoldHistory(folded=True, messages_since=10, dropped_below_reset=True)
    assert decide(P, usage=85, window=100, message_count=10, history=ready).fold
    assert decide(P, usage=100, window=100, message_count=10, history=stuck).trigger is Trigger.EMERGENCY


def test_invalid_ratios_are_refused():
    with pytest.raises(ValueError, match="target_ratio"):
        FoldPolicy(target_ratio=0.9)  # the rule between two fields holds for every policy, checked or not
    with pytest.raises(UsageError, match=r"^fold policy: target_ratio \(0.9\) must be below"):  # not "config:"
        FoldPolicy.checked(target_ratio=0.9)
    with pytest.raises(UsageError, match="keep_ratio"):
        FoldPolicy.checked(keep_ratio=1.5)
    with pytest.raises(UsageError, match="auto"):
        FoldPolicy.checked(auto="sometimes")
    with pytest.raises(UsageError, match="unknown key"):
        FoldPolicy.checked(trigger_ratios=0.7)
    assert FoldPolicy.checked(trigger_ratio="0.7") == FoldPolicy(trigger_ratio=0.7)  # as a config's text gives it


def test_the_reply_reserve_is_capped_by_the_model_output_and_a_quarter_of_the_window():
    policy = FoldPolicy(reserved_output=1024)
    assert policy.reply_reserve(128_000) == 1024
    assert policy.reply_reserve(128_000, max_output_tokens=256) == 256
    assert policy.reply_reserve(2000, max_output_tokens=4096) == 500
    assert FoldPolicy(reserved_output=0).reply_reserve(8000) == 0


def test_the_configs_fold_section_is_the_policy_and_compress_shows_its_defaults():
    from foldchat.engine.config import Settings

    from foldchat.cli.compress_cmd import PolicyDefault

    assert type(Settings().fold) is FoldPolicy  # one model: the [fold] section is the policy
    from pydantic import TypeAdapter

    described = TypeAdapter(FoldPolicy).json_schema()["properties"]
    assert set(described) == {field.name for field in fields(FoldPolicy)}
    assert all(field["description"] for field in described.values())  # a docstring per field, as pydantic reads it
    for name in ("trigger_ratio", "target_ratio", "keep_ratio", "reserved_output"):
        assert str(PolicyDefault(name)) == str(getattr(FoldPolicy(), name))
