"""How long `foldchat compress` takes on the largest input the default cap accepts.

A 15.7 MB input (the old 16 MiB cap) took 328 s of CPU. This builds JSON arrays of everyday chat
messages (bench/chats, repeated with their numbers changed so no two are alike) and of one huge pasted
log, at the sizes given, and times a forced fold of each at a 128k window through the real CLI.

    python bench/largest_input_bench.py [MB ...]      (default: 1 and the default max_input_bytes)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHATS = Path(__file__).parent / "chats"


def everyday(megabytes: float) -> list[dict[str, str]]:
    base: list[dict[str, str]] = []
    for path in sorted(CHATS.glob("*.json")):
        chat = json.loads(path.read_text())
        base += chat["messages"] if isinstance(chat, dict) else chat
    out: list[dict[str, str]] = []
    size = 0
    copy = 0
    while size < megabytes * 1e6:
        for message in base:
            text = f"{message['content']} (copy {copy})"
            out.append({"role": message["role"], "content": text})
            size += len(text) + 40
        copy += 1
    if out[-1]["role"] != "user":
        out.append({"role": "user", "content": "What did we decide?"})
    return out


def pasted(megabytes: float) -> list[dict[str, str]]:
    log = "\n".join(f"2026-11-26T12:{n % 60:02d} INFO worker-{n % 17} handled request {n} in {n % 900} ms"
                    for n in range(int(megabytes * 1e6 / 60)))  # fmt: skip
    return [{"role": "user", "content": "Here is the log:\n" + log}, {"role": "assistant", "content": "Got it."},
            {"role": "user", "content": "Which worker was slowest?"}]  # fmt: skip


def under(messages: list[dict[str, str]], megabytes: float) -> list[dict[str, str]]:
    """`messages` without as many of its oldest (or, for one message, as much of its text) as it takes to
    be at most `megabytes` of JSON."""
    limit = int(megabytes * 1e6)
    while len(json.dumps(messages).encode()) > limit:
        excess = len(json.dumps(messages).encode()) - limit
        if len(messages) > 3:
            messages = messages[max(1, excess // 400) :]
        else:
            messages[0] = {**messages[0], "content": messages[0]["content"][: -excess - 100]}
    return messages


def run(messages: list[dict[str, str]]) -> tuple[float, float, dict[str, object]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(messages, file)
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    started, cpu = time.perf_counter(), os.times()
    done = subprocess.run([sys.executable, "-m", "foldchat", "compress", file.name, "--model", "gpt-4o", "--force"],
                          capture_output=True, text=True, env=env)  # fmt: skip
    after = os.times()
    os.unlink(file.name)
    if done.returncode != 0:
        return time.perf_counter() - started, 0.0, {"error": done.stderr.strip()[-200:]}
    report = json.loads(done.stdout)["report"]
    return time.perf_counter() - started, after.children_user - cpu.children_user, report


def main() -> None:
    from foldchat.engine.config import Settings

    cap = Settings.model_fields["max_input_bytes"].default / 1e6 * 0.97  # JSON framing on top of the text
    sizes = [float(a) for a in sys.argv[1:]] or [1.0, cap]
    print(f"{'input':>22} {'MB':>6} {'wall s':>7} {'cpu s':>6} {'tokens before':>14} {'after':>7}")
    for megabytes in sizes:
        for name, build in (("everyday messages", everyday), ("one pasted log", pasted)):
            messages = under(build(megabytes), megabytes)
            size = len(json.dumps(messages)) / 1e6
            wall, cpu, report = run(messages)
            before, after = report.get("tokens_before", "-"), report.get("tokens_after", report.get("error", "-"))
            print(f"{name:>22} {size:6.1f} {wall:7.1f} {cpu:6.1f} {before!s:>14} {after!s:>7}")


if __name__ == "__main__":
    main()
