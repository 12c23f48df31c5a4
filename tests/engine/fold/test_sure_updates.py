"""Updates are marked only when sure (docs/design.md §14): a later message replaces a value only when it states
a new value for the same thing. Similar numbers of different things (a grocery budget and a savings plan,
a daily and a per-minute quota) stay both current; a value that changes twice ends with the last one
current; an update never claims dozens of messages."""

from __future__ import annotations

from foldchat.engine.fold.supersede import MAX_REPLACED, supersede
from foldchat.engine.snapshot import Snapshot


def marks(items: list[str]) -> list[str]:
    return [item for item in items if "[replaced by" in item]


def test_a_savings_plan_does_not_replace_a_grocery_budget():
    snapshot = supersede(
        Snapshot(
            constraints_and_preferences=["Our household grocery budget is $550 each month. (#12)"],
            user_requests=["update: the household savings plan is now $400 each month. (#311)"],
        )
    )
    assert marks(snapshot.constraints_and_preferences) == []
    assert "[current; replaces" not in snapshot.user_requests[0]


def test_a_daily_quota_and_a_per_minute_quota_are_two_things():
    snapshot = supersede(
        Snapshot(
            key_knowledge=["The API's daily quota is 10,000 requests. (#4)"],
            user_requests=["update: they raised the per-minute quota to 600 requests. (#40)"],
        )
    )
    assert marks(snapshot.key_knowledge) == []


def test_one_childs_dose_is_not_replaced_by_the_others():
    snapshot = supersede(
        Snapshot(
            key_knowledge=["Maisie takes cetirizine 5 mg every evening. (#6)"],
            user_requests=["update: Elliot's melatonin dose changed, now 3 mg every evening. (#50)"],
        )
    )
    assert marks(snapshot.key_knowledge) == []
    same_child = supersede(
        Snapshot(
            key_knowledge=["Elliot takes melatonin 5 mg every evening. (#6)"],
            user_requests=["update: Elliot's melatonin dose changed, now 3 mg every evening. (#50)"],
        )
    )
    assert same_child.key_knowledge[0].startswith("[replaced by #50]")


def test_a_value_that_changes_twice_ends_with_the_last_one_current():
    snapshot = supersede(
        Snapshot(
            key_knowledge=["The rent for the Chester Ave flat is $1,650 a month. (#8)"],
            user_requests=[
                "update: the landlord changed the rent to $1,725 a month. (#30)",
                "actually the rent is now $1,690 a month after we negotiated. (#61)",
            ],
        )
    )
    assert snapshot.key_knowledge[0].startswith("[replaced by #"), snapshot.key_knowledge
    first, last = snapshot.user_requests
    assert first.startswith("[replaced by #61]"), first
    assert not last.startswith("[replaced") and "$1,690" in last


def test_a_goal_stated_once_is_never_marked_replaced_by_itself():
    snapshot = supersede(Snapshot(key_knowledge=["I want to read 12 books by March 1, that's the new goal. (#20)"]))
    assert marks(snapshot.key_knowledge) == []


def test_an_update_never_marks_more_than_a_few_messages():
    """One update that would mark dozens of older statements is a guess (a `replaces` list named 124): when
    it would name more than five, none is marked and both values stay, with their message numbers."""
    older = [f"Budget cap for the trip is $500 total, day {n}. (#{n + 1})" for n in range(9)]
    snapshot = supersede(
        Snapshot(key_knowledge=older, user_requests=["actually raise the budget cap for the trip to $650. (#80)"])
    )
    assert MAX_REPLACED == 5
    assert marks(snapshot.key_knowledge) == []
    assert "[current; replaces" not in snapshot.user_requests[0]
    few = supersede(
        Snapshot(key_knowledge=older[:3], user_requests=["actually raise the budget cap for the trip to $650. (#80)"])
    )
    assert len(marks(few.key_knowledge)) == 3 and "[current; replaces #1, #2, #3]" in few.user_requests[0]


def test_a_replaces_list_carried_across_folds_names_at_most_five():
    from foldchat.engine.fold.supersede import _marked_current

    text = "the cap is now $700 [current; replaces #3, #9, #12, #20] (#90)"
    once = _marked_current(text.removesuffix(" (#90)"), "#31, #44, #51")
    assert once.endswith("[current; replaces #12, #20, #31, #44, #51 and 2 earlier]")
    again = _marked_current(once, "#60")
    assert again.endswith("[current; replaces #20, #31, #44, #51, #60 and 3 earlier]")
