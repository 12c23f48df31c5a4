"""`foldchat ask` after a fold: the question about a folded detail gets its words back in the request, one
line on stderr says what was recalled, and `foldchat show` marks it under the question."""

from __future__ import annotations

import json
from pathlib import Path

from test_recall_at_send import bed, chat

from cli.in_process import foldchat_main as foldchat  # in this process: what `ask` exits with, prints and stores


def test_ask_says_what_it_recalled_and_show_marks_it(home: Path, fake) -> None:
    (home / "garden.json").write_text(json.dumps(chat(70)))  # past the 16k window's trigger: ask folds first
    assert foldchat("import", str(home / "garden.json")).returncode == 0
    detail = bed(5, 4)  # an early reply's row: folded away
    asked = foldchat("ask", "--model", "fake", "-c", "1", f"what did we sow in {detail.split(':')[0].lower()}?")
    assert asked.returncode == 0, asked.stderr
    said = [line for line in asked.stderr.splitlines() if "recalled #" in line]
    assert len(said) == 1 and said[0].startswith("foldchat: recalled #") and " tokens" in said[0]
    assert detail in json.dumps(fake.requests[-1]["messages"])
    shown = foldchat("show", "1").stdout
    assert "(recalled #" in shown and "into its request)" in shown
