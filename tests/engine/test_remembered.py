"""The theme and drafts kept between runs: a private file beside the database, never in the way."""

from __future__ import annotations

from foldchat.engine.remembered import Remembered


def test_drafts_and_theme_are_kept_per_conversation_in_a_private_file(tmp_path):
    kept = Remembered(tmp_path / "app.db")
    kept.set_theme("textual-light")
    kept.set_draft(3, "half a thought")
    kept.set_draft(None, "for a new conversation")
    again = Remembered(tmp_path / "app.db")
    assert again.theme == "textual-light" and again.draft(3) == "half a thought" and again.draft(4) == ""
    assert again.draft(None) == "for a new conversation"
    again.set_draft(3, "   ")  # sent or cleared: forgotten
    assert Remembered(tmp_path / "app.db").draft(3) == ""
    assert (tmp_path / "ui-state.json").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".partial"] == []


def test_a_broken_or_foreign_file_is_an_empty_one(tmp_path):
    for content in (b"\xff\xfe not text", b"[1, 2]", b'{"theme": 7, "drafts": "x"}', b"{" * 5000):
        (tmp_path / "ui-state.json").write_bytes(content)
        kept = Remembered(tmp_path / "app.db")
        assert kept.theme is None and kept.draft(1) == ""
        kept.set_draft(1, "still works")
        assert Remembered(tmp_path / "app.db").draft(1) == "still works"
