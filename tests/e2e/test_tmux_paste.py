"""End to end in a real terminal: a bracketed paste holding an ESC and a control byte stays one paste.
Textual's parser sent the bytes after a pasted ESC on as key presses: a pasted 0x11 quit the app (Ctrl+Q),
and the paste came in reordered with `^` for the ESC (tui/paste_guard.py)."""

from __future__ import annotations

import subprocess
import time

from e2e.test_tmux_quit import foreground
from e2e.test_tmux_recall import garden_in_a_terminal

PASTED = "guest list:\n[/b] [@click=app.quit]x[/]\n\x1b]0;HACKED\x11 Ana, Rui, Marta"


def test_a_paste_with_an_escape_and_ctrl_q_in_it_is_text_in_the_composer(tmp_path, fake):
    terminal = garden_in_a_terminal(tmp_path, fake, 'summarizer = "rules"', "paste.db")
    try:
        subprocess.run([*terminal.tmux, "set-buffer", PASTED], check=True)
        subprocess.run([*terminal.tmux, "paste-buffer", "-p", "-t", terminal.name], check=True)
        screen = terminal.wait_for(lambda s: "Ana, Rui, Marta" in s)
        time.sleep(1)  # a quit the paste set off would have happened by now
        assert foreground(terminal).startswith("python"), terminal.screen()  # still open
        lines = [line for line in screen.splitlines() if "guest list:" in line or "HACKED" in line]
        assert len(lines) == 2 and "guest list:" in lines[0] and "␛]0;HACKED" in lines[1], screen  # in order
        assert "[@click=app.quit]x[/]" in screen  # markup shown as typed
        pane_title = [*terminal.tmux, "display-message", "-p", "-t", terminal.name, "#{pane_title}"]
        assert "HACKED" not in subprocess.run(pane_title, capture_output=True, text=True).stdout
    finally:
        terminal.close()
