"""A snapshot edited by hand keeps only what its sections hold: the inspector shows it section by section and
the next fold reads it back by section, so a line typed outside every section would be sent once, never
shown, and dropped by the next fold without a word. Such an edit is refused, naming the line."""

from __future__ import annotations

import pytest
from foldchat.engine import OpenOptions, Session, UsageError, snapshot as snap
from foldchat.engine.snapshot_edit import edit_refusal, stray_lines

from engine.test_session import fill, settings_for

SNAPSHOT = snap.render_message_text(
    snap.Snapshot(overall_goal="A week in Porto", key_knowledge=["ferry from the blue pier (#2)"], covers="1..4")
)


def test_an_edit_inside_the_sections_is_kept_and_a_line_outside_them_is_named():
    inside = SNAPSHOT.replace("- ferry from the blue pier (#2)", "- ferry from the blue pier (#2)\n- back on 23 May")
    assert stray_lines(inside, SNAPSHOT) == [] and edit_refusal(inside, SNAPSHOT) is None
    assert "back on 23 May" in snap.parse(inside).key_knowledge

    typed = SNAPSHOT.replace("<key_knowledge>", "we come back on 23 May, not 22 May\n<key_knowledge>")
    assert stray_lines(typed, SNAPSHOT) == [(5, "we come back on 23 May, not 22 May")]
    reason = edit_refusal(typed, SNAPSHOT)
    assert reason is not None and "line 5" in reason and "we come back on 23 May, not 22 May" in reason
    assert "\n" not in reason


@pytest.mark.parametrize(
    ("edited", "stray"),
    [
        (SNAPSHOT + "\nP.S. call me Sam", "P.S. call me Sam"),  # after the snapshot
        ("Note: Sam\n" + SNAPSHOT, "Note: Sam"),  # before the intro
        (SNAPSHOT.replace("</key_knowledge>", "</key_knowledge> and the tram"), "and the tram"),  # after a tag
        (SNAPSHOT.replace("<key_knowledge>", "<notes>\n- tram 28\n</notes>\n<key_knowledge>"), "<notes>"),
    ],
)
def test_every_place_outside_a_section_is_stray(edited, stray):
    assert stray in [line for _, line in stray_lines(edited, SNAPSHOT)]


def test_an_edit_without_its_snapshot_tags_is_refused():
    reason = edit_refusal("just my notes", SNAPSHOT)
    assert reason is not None and "state_snapshot" in reason


def test_the_unchanged_intro_of_an_older_snapshot_is_no_stray_line():
    older = SNAPSHOT.replace(snap.SNAPSHOT_INTRO, "An older intro, written by an older Foldchat.")
    assert stray_lines(older, older) == []


@pytest.fixture
def options(fake, tmp_path, monkeypatch) -> OpenOptions:
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    return OpenOptions(settings=settings_for(fake), database=tmp_path / "app.db")


def test_the_session_refuses_a_stray_line_and_keeps_the_snapshot_as_it_was(options):
    with Session.open(options) as session:
        session.connect()
        fill(session)
        session.fold_now()
        fold = session.context.active_fold()
        before = session.chain.snapshot_text(fold)
        head_end = before.index(">", before.index(snap.SNAPSHOT_OPEN)) + 1
        typed = f"{before[:head_end]}\nwe come back on 23 May{before[head_end:]}"
        with pytest.raises(UsageError, match="we come back on 23 May"):
            session.edit_fold(fold.id, typed)
        assert session.chain.snapshot_text(session.context.active_fold()) == before
