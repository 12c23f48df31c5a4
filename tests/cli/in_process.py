"""`foldchat` run inside the test process: `main(argv)` with its own environment, stdin, stdout and stderr.

For the tests whose point is what a command parses, stores, prints and returns, not the process around it:
they share the test process's imports (litellm's alone is seconds in every new process). Tests of what
only a process shows (a crash, a signal, a hang guarded by a timeout, the terminal, bytes that are not
UTF-8 in argv, another process holding the database) keep starting `python -m foldchat`.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


def foldchat_main(
    *args: str, env: Mapping[str, str] | None = None, stdin: str | bytes = ""
) -> subprocess.CompletedProcess[str]:
    """What `python -m foldchat ARGS` exits with and prints, run as `main(ARGS)` in this process, with `env`
    as its whole environment (default: this process's) and `stdin` as its input."""
    from foldchat.cli.main import main

    data = stdin.encode() if isinstance(stdin, str) else stdin
    out, err = io.BytesIO(), io.BytesIO()
    with _environment(env), _streams(io.BytesIO(data), out, err):
        try:
            status = main(list(args))
        except SystemExit as exit:  # argparse's --help and usage errors end this way
            status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return subprocess.CompletedProcess(["foldchat", *args], status, out.getvalue().decode(), err.getvalue().decode())


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        # what the run itself set stays, as it would in a long-lived process (litellm's TIKTOKEN_CACHE_DIR)
        set_by_run = {k: v for k, v in os.environ.items() if k not in env and k not in before}
        os.environ.clear()
        os.environ.update(before | set_by_run)


@contextmanager
def _streams(stdin: io.BytesIO, stdout: io.BytesIO, stderr: io.BytesIO) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    texts = [io.TextIOWrapper(stream, encoding="utf-8") for stream in (stdin, stdout, stderr)]
    sys.stdin, sys.stdout, sys.stderr = texts
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for text in texts:
            text.flush()
            text.detach()  # the bytes stay readable: closing the wrapper would close them
