"""One rule for what may block (issue 42, item 4): the TUI awaits the engine's blocking calls through
`foldchat.engine.off_loop` (engine/blocking.py), the one place the hop to a thread is written, and writes
few `to_thread` of its own. A ratchet: lower `ALLOWED` when a hop goes, never raise it."""

from __future__ import annotations

from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"
ALLOWED = 0  # 46 before the engine's off_loop


def to_thread_count(root: Path) -> dict[str, int]:
    """Each module under `root` that writes `to_thread`, with how many times (code, comments, docstrings)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        if n := path.read_text(encoding="utf-8").count("to_thread"):
            found[str(path.relative_to(root.parent))] = n
    return found


def test_the_tui_writes_no_more_to_thread_than_allowed():
    found = to_thread_count(TUI)
    assert sum(found.values()) <= ALLOWED, f"await foldchat.engine.off_loop(...) instead: {found}"


def test_the_count_sees_a_hop(tmp_path):
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "a.py").write_text("await asyncio.to_thread(f)\nawait asyncio.to_thread(g)\n")
    assert to_thread_count(tmp_path / "tui") == {"tui/a.py": 2}
