"""Where the seconds of one cold `foldchat ask` to the local model go, to see what to speed up.

Run: .venv/bin/python bench/ask_timeline.py [TEXT] [--reuse]
With --reuse, an earlier `ask` (a subprocess, not timed) leaves a kept-alive server for the timed one.
Runs `foldchat ask --new TEXT` in this process with no API key (the embedded model answers; the GGUF
is already assembled) and prints a timeline from process start: the local server launched, litellm
loaded (if it is), the server answering, the first token, the reply done; plus the reply's length in
tokens and whether litellm was ever imported. Start-up of the interpreter itself is included
(measured from the process's own start time in /proc).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY")
MARKS: list[tuple[str, float]] = []


def process_start() -> float:
    """This process's start on the `time.monotonic` clock (both count from boot on Linux)."""
    ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    return ticks / os.sysconf("SC_CLK_TCK")


def mark(name: str) -> None:
    if name not in (seen for seen, _ in MARKS):  # the first time only: later launches find it started
        MARKS.append((name, time.monotonic()))


def traced(owner: Any, attribute: str, before: str | None, after: str | None) -> None:
    original: Callable[..., Any] = getattr(owner, attribute)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if before:
            mark(before)
        result = original(*args, **kwargs)
        if after:
            mark(after)
        return result

    setattr(owner, attribute, wrapper)


def hook_stream(deltas: list[str]) -> None:
    """Mark the request, the first token and the end of the reply (once)."""
    from foldchat.engine.providers import events, stream as providers

    if getattr(providers.stream_reply, "timed", False):
        return
    stream = providers.stream_reply

    async def timed_stream(*args: Any, **kwargs: Any) -> Any:
        mark("request sent")
        async for event in stream(*args, **kwargs):
            if isinstance(event, events.TextDelta):
                if not deltas:
                    mark("first token")
                deltas.append(event.text)
            if isinstance(event, events.UsageReport):
                deltas.append(f"\0{event.completion_tokens}")
            yield event
        mark("reply done")

    timed_stream.timed = True  # type: ignore[attr-defined]
    providers.stream_reply = timed_stream  # type: ignore[assignment]
    import foldchat.engine.replies as replies

    replies.stream_reply = timed_stream  # type: ignore[attr-defined]


def main() -> None:
    words = [a for a in sys.argv[1:] if a != "--reuse"]
    text = words[0] if words else "hello"
    reuse = "--reuse" in sys.argv
    start = process_start()
    mark("python ready, foldchat imports start")
    # only what `foldchat ask` imports before it launches the server: the stream hook is installed
    # once the server is waiting (by then `ask` has imported providers itself), so the timeline shows
    # when a real `ask` launches it
    from foldchat.engine import lazy
    from foldchat.engine.config import LocalModelSettings
    from foldchat.engine.local import model as local_model

    from foldchat.cli.main import main as foldchat_main

    model = local_model.ensure_gguf(LocalModelSettings())
    traced(local_model.LocalModelServer, "launch", "server launch begins", "server process started")
    traced(local_model.LocalModelServer, "_wait_ready", None, "server answers")
    traced(local_model.LocalModelServer, "_load_quietly", "vocabulary load begins (thread)", "vocabulary loaded")
    traced(lazy, "load_litellm", "litellm import begins", "litellm loaded")
    deltas: list[str] = []
    start_server = local_model.LocalModelServer.start

    def start_then_hook(self: Any, *args: Any, **kwargs: Any) -> Any:
        mark("waiting for the server")
        hook_stream(deltas)
        return start_server(self, *args, **kwargs)

    local_model.LocalModelServer.start = start_then_hook  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        for key in KEYS:
            os.environ.pop(key, None)
        os.environ.update(FOLDCHAT_CONFIG=os.devnull, FOLDCHAT_DATABASE=str(Path(tmp) / "db.sqlite"),
                          XDG_CACHE_HOME=str(Path(tmp) / "cache"), FOLDCHAT_LOCAL__MODEL_PATH=str(model))  # fmt: skip
        if reuse:
            os.environ["FOLDCHAT_LOCAL__KEEP_ALIVE"] = "60"
            subprocess.run([sys.executable, "-m", "foldchat", "ask", "--new", "Hi"], capture_output=True, check=True)
            mark("(untimed) first ask done, its server kept alive")
        code = foldchat_main(["ask", "--new", text])
        if reuse:
            state = json.loads((Path(tmp) / "cache" / "foldchat" / "local-server.json").read_text())
            os.kill(int(state["pid"]), signal.SIGTERM)
    mark("process done")
    print(f"exit {code}; litellm imported: {'litellm' in sys.modules}", file=sys.stderr)
    tokens = [d for d in deltas if d.startswith("\0")]
    print(f"reply: {sum(len(d) for d in deltas if not d.startswith(chr(0)))} chars, "
          f"{tokens[-1][1:] if tokens else '?'} completion tokens", file=sys.stderr)  # fmt: skip
    previous = start
    for name, at in [("process start", start), *MARKS]:
        print(f"{at - start:7.2f} s  (+{at - previous:5.2f})  {name}", file=sys.stderr)
        previous = at


if __name__ == "__main__":
    main()
