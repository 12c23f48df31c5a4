"""Type-check the whole package strictly, as it installs: `make test` runs this instead of a bare mypy.

engine/ and tui/ install as foldchat.engine and foldchat.tui (pyproject's package-dir), and the faces
import them by those names. mypy cannot follow the editable install's import hook, so this lays the
installed tree out as symlinks under build/typecheck/, checks `-p foldchat` there with pyproject's
settings, and prints the repository's own paths in what mypy says.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"
# where each part of the installed package lives in the repository (pyproject's package-dir)
PARTS = {"foldchat/engine": "engine", "foldchat/tui": "tui", "foldchat/cli": "foldchat/cli"}
TOP_FILES = ("__init__.py", "__main__.py", "py.typed")


def lay_out_tree() -> None:
    package = TREE / "foldchat"
    package.mkdir(parents=True, exist_ok=True)
    links = {name: f"foldchat/{name}" for name in TOP_FILES} | {
        installed.removeprefix("foldchat/"): source for installed, source in PARTS.items()
    }
    for name, source in links.items():
        link = package / name
        if link.is_symlink() and Path(os.readlink(link)) == ROOT / source:
            continue
        link.unlink(missing_ok=True)
        link.symlink_to(ROOT / source)


def repository_paths(line: str) -> str:
    """`build/typecheck/foldchat/engine/x.py:3: …` reads as `engine/x.py:3: …`."""
    for tree in (f"{TREE}/", f"{TREE.relative_to(ROOT)}/"):
        for installed, source in PARTS.items():
            line = line.replace(f"{tree}{installed}/", f"{source}/")
        line = line.replace(f"{tree}foldchat/", "foldchat/")
    return line


def main() -> int:
    lay_out_tree()
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "foldchat"]
    environment = os.environ | {"MYPYPATH": str(TREE)}
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    for line in (result.stdout + result.stderr).splitlines():
        print(repository_paths(line))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
