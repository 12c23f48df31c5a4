"""`foldchat(...)`: the CLI run in a child process, for the runtime tests and the engine tests that start it
(the `home` fixture they use, a config + database on the fake server, is in tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys


def foldchat(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foldchat", *args], input=stdin, capture_output=True, text=True, timeout=timeout,
        env=os.environ.copy(),
    )  # fmt: skip
