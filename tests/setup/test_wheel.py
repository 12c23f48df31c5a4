"""Any install starts the app, not only the editable one `make` uses: the wheel is built, installed into a
scratch venv (its dependencies seen from the project's venv, Foldchat itself only from the wheel), and
both faces are started from it: the app opens, paints and quits in a real terminal, and `foldchat ask`
answers from a loopback server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("engine", "tui", "foldchat", "pyproject.toml", "setup.py", "README.md")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch venv holding Foldchat from its wheel (not editable); its bin folder."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # a copy: a build leaves build/ and *.egg-info behind
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work), str(source)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    wheel = next(work.glob("foldchat-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    scratch_site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    # the dependencies, from the project's venv: a plain path line, so its editable Foldchat is not seen
    (scratch_site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps"]
    done = subprocess.run([*pip, "--no-index", str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return venv / "bin"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(TERM="xterm-256color")
    return env


def test_the_wheel_holds_every_package_of_the_tree(installed: Path, tmp_path: Path) -> None:
    """Every folder with an __init__.py ships, from a folder where the checkout is not importable."""
    expected = {"foldchat"}
    for folder, name in (("foldchat", "foldchat"), ("engine", "foldchat.engine"), ("tui", "foldchat.tui")):
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            expected.add(".".join((name, *relative)))
    probe = (
        "import importlib, sys, foldchat; "
        "[importlib.import_module(n) for n in sys.argv[1:]]; print(foldchat.__file__)"
    )
    shown = subprocess.run(
        [str(installed / "python"), "-c", probe, *sorted(expected)], capture_output=True, text=True, cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert str(installed.parent) in shown.stdout, "Foldchat was imported from the checkout, not the wheel"


def test_foldchat_ask_answers_from_the_wheel(installed: Path, home: Path, fake) -> None:
    fake.reply = "hello from the loopback server"
    asked = subprocess.run(
        [str(installed / "foldchat"), "ask", "--model", "fake", "hi"],
        capture_output=True, text=True, cwd=home, env=_env(home), timeout=120,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    assert "hello from the loopback server" in asked.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_app_opens_paints_and_quits_from_the_wheel(installed: Path, home: Path) -> None:
    from test_tmux import Tmux

    terminal = Tmux(_env(home))
    try:
        terminal.run(f"cd {home} && {installed / 'foldchat'} --model fake --new; echo status=$?")
        terminal.wait_for(lambda screen: "fake · 16,000 token window" in screen and "^q Quit" in screen, 60)
        terminal.keys("C-q")
        screen = terminal.wait_for(lambda screen: re.search(r"status=\d", screen) is not None, 20)
        assert "status=0" in screen, screen
        assert "ModuleNotFoundError" not in screen
    finally:
        terminal.close()
