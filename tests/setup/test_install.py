"""Set-up on a fresh machine: the venv repairs itself, the install says what it waits for, installs
come from the lock, and the test suite never writes to the user's real home."""

from __future__ import annotations

import os
import re
import subprocess
import sys
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
    assert "still installing" in out and "llama-cpp-python" in out and "minutes" in out


def test_make_installs_from_the_lock_and_the_lock_pins_every_dependency() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "scripts/install.py" in makefile and "constraints.txt" in makefile
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    names = {re.split(r"[<>=~\[ ;]", n.lower().replace("_", "-"))[0] for n in pins}
    for needed in ("litellm", "textual", "llama-cpp-python", "pydantic-settings", "tiktoken", "hypothesis"):
        assert needed in names, needed


def test_the_test_suite_has_its_own_home() -> None:
    """Tests write their databases, caches, models and shell history under a scratch home, never ~."""
    home = Path(os.environ["HOME"])
    assert home.name.startswith("foldchat-tests-home")
    from foldchat.engine.paths import cache_dir, data_dir

    for folder in (cache_dir(), data_dir()):
        assert folder.resolve().is_relative_to(home.resolve()), folder
    assert os.environ.get("HISTFILE") == os.devnull
