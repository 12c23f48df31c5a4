"""How long whole `foldchat` commands take, from process start to exit, against the tokenizer's start-up.

Run: .venv/bin/python bench/cli_bench.py [runs]   (default 7 runs per command, after one warm-up)
Each command runs as a fresh process, as a user runs it (the venv's `foldchat` script), the commands in turn
(a round of each at a time, so a drift of the machine's speed is shared by all), against a throw-away config,
database and cache, so imports are paid every time, as a user pays them: from byte-compiled modules, as an install has
them (the warm-up writes them under the throw-away folder even where PYTHONDONTWRITEBYTECODE is set, which
left every run compiling Foldchat's modules from source: ~35 ms of `list`'s 0.2 s). The database holds the
conversations of bench/chats five times over (30 conversations, ~4,000 messages); `show 1` prints the first of them whole.
Reports min / median / max seconds and each median over two floors:
- `import tiktoken`: the tokenizer's import alone;
- tokenizer ready: a process that counts one text with o200k (the import plus the encoding from
  Foldchat's cache), the least `compress` does.
Targets on a quiet machine: `list`, `show`, `list --search` <= 0.1 s, and <= 0.3x the tokenizer ready;
`compress` of a 20-message file <= 1.5x the tokenizer ready. `python -c pass` is the interpreter's own start.
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

ROOT = Path(__file__).resolve().parent.parent
COPIES = 5  # of each bench/chats conversation in the database
SEARCH = "budget"  # a word some of the conversations hold
TARGET_SECONDS = {"list": 0.1, "show 1": 0.1, "list --search": 0.1}
TARGET_RATIO = {"list": 0.3, "show 1": 0.3, "list --search": 0.3, "compress": 1.5}  # x the tokenizer ready
FOLDCHAT_COMMAND = "foldchat"
FOLDCHAT = str(Path(sys.executable).with_name("foldchat"))  # what a user types: the installed command's script
TOKENIZER_READY = "from foldchat.engine.tokens import counter_for; counter_for('gpt-4o').count_text('ready')"


def twenty_messages() -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are a helpful assistant."}]
    for i in range(19):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"Step {i}: PAY-{1000 + i} touches src/app/file{i}.py. " * 20})
    return messages


def run(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """`args` run by this interpreter, or the `foldchat` command itself for `FOLDCHAT`'s."""
    argv = [FOLDCHAT, *args[1:]] if args[:1] == [FOLDCHAT_COMMAND] else [sys.executable, *args]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return took, done


def fill_database(root: Path, env: dict[str, str]) -> None:
    """bench/chats' conversations, `COPIES` times each, imported as a user would."""
    for copy in range(COPIES):
        for chat in sorted((ROOT / "bench" / "chats").glob("*.json")):
            messages = root / f"{chat.stem}-{copy}.json"
            messages.write_text(json.dumps(json.loads(chat.read_text())["messages"]))
            run(["-m", "foldchat", "import", str(messages)], env)


def commands(history: Path) -> dict[str, list[str]]:
    return {
        "python -c pass": ["-c", "pass"],
        "import tiktoken": ["-c", "import tiktoken"],
        "tokenizer ready": ["-c", TOKENIZER_READY],
        "compress": [FOLDCHAT_COMMAND, "compress", "--model", "gpt-4o", "--force", str(history)],
        "list": [FOLDCHAT_COMMAND, "list"],
        "show 1": [FOLDCHAT_COMMAND, "show", "1"],
        "list --search": [FOLDCHAT_COMMAND, "list", "--search", SEARCH],
        "export 1": [FOLDCHAT_COMMAND, "export", "1"],
    }


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        unrelated = ("OPENAI_", "ANTHROPIC_", "GEMINI_", "FOLDCHAT_")  # no key, no setting of the user's
        env = {k: v for k, v in os.environ.items() if not k.startswith(unrelated)}
        env |= {"FOLDCHAT_CONFIG": os.devnull, "FOLDCHAT_DATABASE": str(root / "db.sqlite"),
                "XDG_CACHE_HOME": str(root / "cache"), "XDG_DATA_HOME": str(root / "data")}  # fmt: skip
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as installed (see above), not the repo's __pycache__
        env["PYTHONPYCACHEPREFIX"] = str(root / "bytecode")
        fill_database(root, env)
        history = root / "history.json"
        history.write_text(json.dumps(twenty_messages()))
        medians: dict[str, float] = {}
        print(f"{'command':<16} {'min s':>7} {'median s':>9} {'max s':>7} {'target s':>9} {'÷ import':>9} "
              f"{'÷ ready':>8} {'target ÷':>9}")  # fmt: skip
        table = commands(history)
        for args in table.values():
            run(args, env)  # warm-up: byte-compiled sources, the encoding's cache written
        # interleaved, a round of every command at a time: the machine's speed drifts (a shared host), and
        # a drift must not land on one command's runs and not another's
        samples: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(runs):
            for name, args in table.items():
                samples[name].append(run(args, env)[0])
        for name, times in samples.items():
            medians[name] = median = statistics.median(times)
            over_import = median / medians["import tiktoken"] if "import tiktoken" in medians else None
            over_ready = median / medians["tokenizer ready"] if "tokenizer ready" in medians else None
            print(
                f"{name:<16} {min(times):>7.3f} {median:>9.3f} {max(times):>7.3f} {TARGET_SECONDS.get(name, ''):>9} "
                f"{f'{over_import:.2f}' if over_import else '':>9} {f'{over_ready:.2f}' if over_ready else '':>8} "
                f"{TARGET_RATIO.get(name, ''):>9}"
            )


if __name__ == "__main__":
    main()
