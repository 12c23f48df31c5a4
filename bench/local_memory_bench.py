"""Local server memory: resident size after filling the window with one prompt.

Run: .venv/bin/python bench/local_memory_bench.py [--tokens N]
Starts the embedded server as Foldchat does, sends one chat request whose prompt is about N tokens
(default: the whole window minus room for the template and a 4-token reply) and reports the
server's VmRSS and peak (VmHWM) from /proc.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from pathlib import Path

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import SERVED_NAME, LocalModelServer

LINE = "Line {n}: the river flows past the old mill and the bakery opens at seven."


def memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def prompt_of(server: LocalModelServer, tokens: int) -> str:
    lines: list[str] = []
    while server.count_text(" ".join(lines)) < tokens:
        lines += [LINE.format(n=len(lines) + k) for k in range(20)]
    while lines and server.count_text(" ".join(lines)) > tokens:
        lines.pop()
    return " ".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, help="prompt size (default: the full window)")
    args = parser.parse_args()
    settings = LocalModelSettings()
    server = LocalModelServer(settings)
    server.start()
    assert server.process is not None
    try:
        idle = memory_kb(server.process.pid)
        prompt = prompt_of(server, args.tokens or settings.context_size - 120)
        tokens = server.count_text(prompt)
        body = json.dumps({"model": SERVED_NAME, "messages": [{"role": "user", "content": prompt}], "max_tokens": 4})
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions", data=body.encode(),
            headers={"Authorization": f"Bearer {server.api_key}", "Content-Type": "application/json"},
        )  # fmt: skip
        start = time.perf_counter()
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=3600) as response:
            response.read()
        took = time.perf_counter() - start
        after = memory_kb(server.process.pid)
        print(
            f"window={settings.context_size} prompt={tokens} tokens ({took:.0f} s): "
            f"server RSS idle {idle['VmRSS'] / 1024:.0f} MB -> {after['VmRSS'] / 1024:.0f} MB, "
            f"peak {after['VmHWM'] / 1024:.0f} MB"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
