"""How long `foldchat ask` to the local model takes from a cold process.

Run: .venv/bin/python bench/ask_bench.py [runs]   (default 3 runs per row)
Every run is a fresh `python -m foldchat ask --new ...` with no API key, so the embedded model answers;
the GGUF is already assembled. Rows: `keep_alive 0` (the server starts and stops with each ask) and
`keep_alive 300, reused` (a server an earlier ask left running answers; the first, starting run is not
counted). Reports min / median / max seconds, whole process. Target: cold <= 3 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import ensure_gguf

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY")


def ask(env: dict[str, str], text: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "foldchat", "ask", "--new", text], capture_output=True, text=True, env=env, timeout=300
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"ask failed: {done.stderr.strip()[-400:]}")
    return took


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    model = ensure_gguf(LocalModelSettings())
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores: above 2, everything here waits for CPU)")
    print(f"{'case':<26} {'min s':>7} {'median s':>9} {'max s':>7}")
    for name, keep in (("keep_alive 0 (cold)", "0"), ("keep_alive 300, reused", "300")):
        with tempfile.TemporaryDirectory() as tmp:
            env = {k: v for k, v in os.environ.items() if k not in KEYS}
            env |= {"FOLDCHAT_CONFIG": os.devnull, "FOLDCHAT_DATABASE": str(Path(tmp) / "db.sqlite"),
                    "XDG_CACHE_HOME": str(Path(tmp) / "cache"), "FOLDCHAT_LOCAL__MODEL_PATH": str(model)}  # fmt: skip
            if keep != "0":  # (0 is the default: left unset, so the row also runs on older trees)
                env["FOLDCHAT_LOCAL__KEEP_ALIVE"] = keep
                ask(env, "Hello")  # leaves the server running for the measured runs
            times = [ask(env, "hello") for _ in range(runs)]  # replies to a greeting end in well under a second
            print(f"{name:<26} {min(times):>7.2f} {statistics.median(times):>9.2f} {max(times):>7.2f}")
            _stop_kept(Path(tmp) / "cache" / "foldchat" / "local-server.json")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def _stop_kept(state: Path) -> None:
    """The bench's own kept-alive server: stopped now rather than after its idle time."""
    import contextlib
    import json
    import signal

    with contextlib.suppress(OSError, ValueError, KeyError):
        os.kill(int(json.loads(state.read_text())["pid"]), signal.SIGTERM)


if __name__ == "__main__":
    main()
