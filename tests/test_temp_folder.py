"""A test run leaves the temp folder as it found it, but for the folders of tests that failed: the scratch
home (tests/conftest.py; its caches were 250 MB a run) goes when the run ends, and each passing test's
tmp_path with the test (pyproject's tmp_path_retention_policy)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a test that fills the scratch home's cache (the parsed encodings, 5 MB) and its module's tmp_path
INNER = "tests/cli/test_compress_cli.py::test_forced_fold_from_a_file"
PARALLEL = ("-n", "2", "--dist", "loadfile")  # as `make test` runs it (Makefile): each worker has a home of its own


def test_a_run_removes_its_scratch_home_and_the_folders_of_passing_tests(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PARALLEL, INNER], cwd=ROOT, capture_output=True,
        text=True, timeout=600, env={**os.environ, "TMPDIR": str(temp)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert list(temp.glob("foldchat-tests-home-*")) == []
    left = {str(p.relative_to(temp)): p.stat().st_size for p in temp.rglob("*") if p.is_file()}
    assert sum(left.values()) < 100_000, left
