"""fold/fit.py: a snapshot cut to its budget, least precious first, pins never cut."""

from copy import deepcopy

from foldchat.engine import Snapshot
from foldchat.engine.fold.fit import fit_snapshot
from foldchat.engine.snapshot import render


def words(snapshot: Snapshot) -> int:
    return len(render(snapshot).split())


def full_snapshot() -> Snapshot:
    return Snapshot(
        overall_goal="Migrate the billing service to Postgres 16",
        user_requests=[f"request {n}: move table INV-{n} to the new cluster please" for n in range(40)],
        recent_actions=[f"action {n} " + "detail " * 10 for n in range(30)],
        key_knowledge=[f"fact {n} " + "context " * 10 for n in range(30)],
        pinned=["Never drop the ledger table"],
    )


def test_a_snapshot_within_budget_comes_back_equal_but_as_a_copy():
    snapshot = full_snapshot()
    fitted = fit_snapshot(snapshot, 10_000, words)
    assert fitted == snapshot and fitted is not snapshot


def test_cuts_start_with_recent_actions_and_keep_pins_and_the_input_untouched():
    snapshot = full_snapshot()
    before = deepcopy(snapshot)
    budget = words(snapshot) - 100
    fitted = fit_snapshot(snapshot, budget, words)
    assert words(fitted) <= budget
    assert len(fitted.recent_actions) < len(snapshot.recent_actions)
    assert fitted.user_requests == snapshot.user_requests  # not reached yet
    assert fitted.pinned == ["Never drop the ledger table"]
    assert snapshot == before


def test_a_tiny_budget_keeps_identifiers_of_old_requests_and_every_pin():
    fitted = fit_snapshot(full_snapshot(), 60, words)
    assert fitted.pinned == ["Never drop the ledger table"]
    assert fitted.user_requests and fitted.recent_actions == [] and fitted.key_knowledge == []
    assert "INV-39" in " ".join(fitted.user_requests)
