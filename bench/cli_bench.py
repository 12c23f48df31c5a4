"""How long whole `foldchat` commands take, from process start to exit.

Run: .venv/bin/python bench/cli_bench.py [runs]   (default 7 runs per command)
Each command runs as a fresh process (`python -m foldchat ...`) against a throw-away config, database and
cache, so imports are paid every time, as a user pays them. Reports min / median / max seconds.
Targets: `compress` of a 20-message file <= 1.0 s; `list`, `show`, `export` <= 0.5 s.
The interpreter's own start-up (`python -c pass`) is shown for reference.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"compress": 1.0, "list": 0.5, "show": 0.5, "export": 0.5}


def twenty_messages() -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are a helpful assistant."}]
    for i in range(19):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"Step {i}: PAY-{1000 + i} touches src/app/file{i}.py. " * 20})
    return messages


def run(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return took, done


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_"))}
        env |= {"FOLDCHAT_CONFIG": os.devnull, "FOLDCHAT_DATABASE": str(root / "db.sqlite"),
                "XDG_CACHE_HOME": str(root / "cache"), "XDG_DATA_HOME": str(root / "data")}  # fmt: skip
        history = root / "history.json"
        history.write_text(json.dumps(twenty_messages()))
        _, imported = run(["-m", "foldchat", "import", str(history)], env)
        conversation = imported.stdout.split()[0]
        commands = {
            "python -c pass": ["-c", "pass"],
            "compress": ["-m", "foldchat", "compress", "--model", "gpt-4o", "--force", str(history)],
            "list": ["-m", "foldchat", "list"],
            "show": ["-m", "foldchat", "show", conversation],
            "export": ["-m", "foldchat", "export", conversation],
        }
        print(f"{'command':<16} {'min s':>7} {'median s':>9} {'max s':>7} {'target s':>9}")
        for name, args in commands.items():
            times = [run(args, env)[0] for _ in range(runs)]
            target = TARGETS.get(name)
            print(
                f"{name:<16} {min(times):>7.2f} {statistics.median(times):>9.2f} {max(times):>7.2f} "
                f"{target if target else '':>9}"
            )


if __name__ == "__main__":
    main()
