"""Where the app's CPU goes while the local model streams: cProfile of the streaming turns, per thread.

Run: .venv/bin/python bench/stream_profile.py [--py-spy] [--rounds N] [--top N] [--out FILE]

The app runs in real tmux (160x48), talking to the real local model server. After one warm-up reply,
profiling is switched on, the prompts are sent one after another (each waits for its reply to be
stored as complete), and profiling is switched off. Printed: CPU seconds of the app's main thread and
of its other threads over that span, the streamed text, then either
- (default) cProfile of the main thread (bench/profiled_app.py): top functions by cumulative time,
  with call counts; cProfile's own overhead inflates code made of many small calls (Textual's
  rendering), so read the shares with the py-spy run beside them; or
- (--py-spy) py-spy samples of every thread, idle ones left out: each function's share of the busy
  samples that have it on the stack (py-spy must be installed in the venv; it is not a dependency).
"""

from __future__ import annotations

import argparse
import collections
import os
import pstats
import shlex
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tui_bench import LONG_REPLY, PROMPTS, ROOT, TICKS, Terminal, completed_replies


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds by thread name (threads of the same name summed; the main thread is 'main')."""
    found: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        name = "main" if task.name == str(pid) else stat.split("(", 1)[1].rsplit(")", 1)[0]
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return found


def streamed(db: Path) -> tuple[int, int]:
    """Characters and tokens of every reply stored so far."""
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(json_extract(payload, '$.content'))), 0), COALESCE(SUM(tokens), 0)"
            " FROM messages WHERE role = 'assistant'"
        ).fetchone()
    return int(row[0]), int(row[1])


def send_and_wait(terminal: Terminal, replies: object, prompt: str) -> None:
    assert callable(replies)
    before = replies()
    terminal.send(prompt, literal=True)
    terminal.send("Enter")
    deadline = time.perf_counter() + 180
    while replies() <= before and time.perf_counter() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)


def busy_shares(raw: Path, top: int) -> None:
    """Each function's share of py-spy's busy samples (counted once per sample it appears in)."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [
            f.split(" (")[0] + " (" + f.split(" (")[1].split(":")[0].rsplit("/", 2)[-1] + ")"
            for f in stack.split(";")
            if " (" in f
        ]
        total += int(count)
        for frame in set(frames):
            inclusive[frame] += int(count)
        if frames:
            own[frames[-1]] += int(count)
    print(f"py-spy: {total} busy samples; function, share with it on the stack, share in it itself")
    for frame, count in inclusive.most_common(top):
        print(f"  {100 * count / total:5.1f} %  {100 * own[frame] / total:5.1f} %  {frame}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2, help="times the four prompts are sent")
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--py-spy", action="store_true", help="sample every thread with py-spy")
    parser.add_argument("--out", default="/tmp/foldchat-stream.prof", help="where the profile is written")
    parser.add_argument("--long-reply", action="store_true", help="a long Markdown reply from a loopback server")
    args = parser.parse_args()
    server = None
    prompts = PROMPTS * args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "foldchat.db"
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(FOLDCHAT_DATABASE=str(db), FOLDCHAT_CONFIG=os.devnull, TERM="xterm-256color")
        if args.long_reply:  # as tui_bench --long-reply: ~1,000 chunks at 50 chunks/s
            sys.path.insert(0, str(ROOT / "tests"))
            from servers.fake_openai import FakeOpenAI

            server = FakeOpenAI().start()
            server.reply, server.pace = LONG_REPLY, 0.02
            config = Path(tmp) / "long.toml"
            config.write_text(
                f'default_model = "fake"\n[models.fake]\nmodel = "openai/fake-model"\n'
                f'api_base = "{server.base_url}"\napi_key_env = "FAKE_KEY"\ncontext_window = 128000\n'
            )
            env.update(FOLDCHAT_CONFIG=str(config), FAKE_KEY="sk-bench")
            prompts = ["Tell me about the sea."] * args.rounds
        exe = str(Path(sys.executable).parent / "foldchat")
        app = [exe] if args.py_spy else [sys.executable, str(ROOT / "bench" / "profiled_app.py"), args.out]
        terminal = Terminal(env)
        try:
            terminal.wait(lambda s: "$" in s or "#" in s, timeout=10)
            terminal.send(shlex.join([*app, "--new"]), "Enter")
            terminal.wait(lambda s: "token window" in s, timeout=300)
            pid = terminal.app_pid()
            replies = completed_replies(db)
            send_and_wait(terminal, replies, "Hello!")  # warm-up: litellm sets up its clients
            Path(args.out).write_text("")
            cpu0, wall0, (chars0, tokens0) = thread_cpu(pid), time.perf_counter(), streamed(db)
            spy = None
            if args.py_spy:
                spy_exe = str(Path(sys.executable).parent / "py-spy")
                command = [
                    spy_exe,
                    "record",
                    "--pid",
                    str(pid),
                    "--format",
                    "raw",
                    "--rate",
                    "250",
                    "--output",
                    args.out,
                ]
                spy = subprocess.Popen(
                    [*command, "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                time.sleep(1.0)  # attached
            else:
                os.kill(pid, signal.SIGUSR1)
            for prompt in prompts:
                send_and_wait(terminal, replies, prompt)
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(timeout=60)
            else:
                os.kill(pid, signal.SIGUSR2)
            wall = time.perf_counter() - wall0
            cpu1, (chars1, tokens1) = thread_cpu(pid), streamed(db)
            time.sleep(3.0)  # cProfile's dump is written by the app's signal handler, when its loop wakes
        finally:
            terminal.close()
            if server is not None:
                server.stop()
    replies_sent = len(prompts)
    print(f"wall {wall:.2f} s, {replies_sent} replies, {chars1 - chars0:,} characters, {tokens1 - tokens0:,} tokens")
    total = 0.0
    for name in sorted(cpu1, key=lambda n: cpu0.get(n, 0.0) - cpu1[n]):
        used = cpu1[name] - cpu0.get(name, 0.0)
        total += used
        if used > 0.005:
            print(f"  thread {name:<20} {used:6.2f} s CPU  {100 * used / wall:5.1f} % of a core")
    print(f"  all threads          {total:6.2f} s CPU  {100 * total / wall:5.1f} % of a core")
    if args.py_spy:
        busy_shares(Path(args.out), args.top)
        return
    stats = pstats.Stats(args.out)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
