"""The app in a real terminal (tmux, 160x48): first paint, a 2,000-message chat, CPU while streaming, RSS.

Run: .venv/bin/python bench/tui_bench.py [--elia PATH_TO_ELIA] [--floor] [--streaming-only] [--long-reply]
                                         [--history N] [--rounds R]

- first paint: from launching the command to the first frame on screen (median of 5);
- a 2,000-message conversation: time until its last message is visible, and the app's RSS then;
- CPU of the app process and any helper it starts (not the model server) while the local model
  streams replies, as a share of one core and in CPU seconds per reply (`--streaming-only` skips
  the first-paint and 2,000-message figures; `--long-reply` adds one long Markdown reply of ~1,000
  chunks at 50 chunks/s from a loopback OpenAI-format server, since the base model answers in a line;
  `--history N` adds the same figures in a conversation that already holds N messages);
- RSS after a reply: the app's, its helper processes' (if any) and the local model server's, each named.
With --floor, a bare Textual chat (bench/textual_floor.py) is measured the same way: Textual's own
cost of a first paint and of a turn on this machine, which no app built on it goes below; and again with
its turns as long as Foldchat's were (a share of a core depends on the turn's length), once as a
column of widgets and once with a transcript drawn through Textual's line API (a `Log`, no widget per
message), to see what a transcript without widgets would save.
Each CPU figure is over the four prompts sent R times (default 2, eight turns); more rounds, less noise.
With --elia, Elia is measured the same way (it imports the same 2,000 messages as a ChatGPT export and
talks to the same local model server), and the ratios are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAST = "LAST-MESSAGE-OF-2000"
TICKS = os.sysconf("SC_CLK_TCK")


class Terminal:
    def __init__(self, env: dict[str, str]) -> None:
        self.name = f"bench-{uuid.uuid4().hex[:6]}"
        self.tmux = ["tmux", "-L", self.name]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", "b", "-x", "160", "-y", "48"], env=env, check=True)

    def send(self, *keys: str, literal: bool = False) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", "b", *(["-l"] if literal else []), *keys], check=True)

    def screen(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True).stdout

    def wait(self, predicate: Callable[[str], bool], timeout: float = 120) -> float:
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if predicate(self.screen()):
                return time.perf_counter() - start
            time.sleep(0.01)
        raise TimeoutError(self.screen())

    def app_pid(self) -> int:
        shell = subprocess.run([*self.tmux, "display", "-p", "-t", "b", "#{pane_pid}"], capture_output=True, text=True)
        children = subprocess.run(["pgrep", "-P", shell.stdout.strip()], capture_output=True, text=True).stdout.split()
        return int(children[0])

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def process_rss(pid: int) -> dict[str, float]:
    """RSS of the app, of its helper processes (summed) and of the local model server, in MB."""
    server = helpers = 0.0
    for child in descendants(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if MODEL_SERVER in command:
            server += rss_mb(child)
        else:
            helpers += rss_mb(child)
    app = rss_mb(pid)
    return {"RSS app process MB": app, "RSS helper processes MB": helpers,
            "RSS all but the model server MB": app + helpers, "RSS model server MB": server}  # fmt: skip


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


MODEL_SERVER = b"foldchat.engine.local.server"


def own_processes(pid: int) -> list[int]:
    """`pid` and every process it started, except the local model server (and what that starts)."""
    server: set[int] = set()
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            if MODEL_SERVER in Path(f"/proc/{child}/cmdline").read_bytes():
                server.update([child, *descendants(child)])
    return [pid, *(child for child in descendants(pid) if child not in server)]


def own_cpu_seconds(pid: int) -> float:
    """CPU of the app and its helpers (not the model server), from their /proc stat while alive."""
    total = 0.0
    for process in own_processes(pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(process)
    return total


def launch(env: dict[str, str], command: str, ready: Callable[[str], bool]) -> tuple[Terminal, float]:
    terminal = Terminal(env)
    terminal.wait(lambda s: "$" in s or "#" in s, timeout=10)
    terminal.send(command, "Enter")
    return terminal, terminal.wait(ready)


def first_paint(env: dict[str, str], command: str, painted: Callable[[str], bool]) -> float:
    times = []
    for _ in range(5):
        terminal, elapsed = launch(env, command, painted)
        times.append(elapsed)
        terminal.close()
        time.sleep(0.5)
    return statistics.median(times)


def conversation_database(path: Path, messages: int, ask: Callable[[int], str], answer: Callable[[int], str]) -> int:
    """A Foldchat database holding one conversation of `messages` messages, questions and answers in turn."""
    sys.path.insert(0, str(ROOT))
    from foldchat.engine.messages import Message
    from foldchat.engine.store import Store

    store = Store(path)
    cid = store.create_conversation(model="local")
    for n in range(messages):
        if n % 2 == 0:
            store.append(cid, Message.user(ask(n)))
        else:
            store.append(cid, Message.assistant(answer(n)), model="local")
    store.close()
    return cid


def foldchat_database(path: Path) -> int:
    """The 2,000-message conversation, its last message `LAST`."""
    return conversation_database(
        path,
        2000,
        lambda n: f"Question {n}: how do I parse `config-{n}.toml` in Python?",
        lambda n: (
            LAST if n == 1999 else f"Answer {n}: use **tomllib**:\n\n```python\nimport tomllib\n```\n\n- one\n- two"
        ),
    )


def chatgpt_export(path: Path) -> None:
    mapping, parent = {}, None
    for n in range(2000):
        node = f"n{n}"
        role = "user" if n % 2 == 0 else "assistant"
        text = LAST if n == 1999 else f"{role} message {n} with **markdown** and `code-{n}`"
        mapping[node] = {
            "id": node, "parent": parent, "children": [f"n{n + 1}"] if n < 1999 else [],
            "message": {"id": node, "author": {"role": role}, "create_time": 1_700_000_000 + n,
                        "content": {"content_type": "text", "parts": [text]}, "metadata": {"model_slug": "gpt-4o"}},
        }  # fmt: skip
        parent = node
    path.write_text(json.dumps([{"title": "Two thousand", "create_time": 1_700_000_000, "update_time": 1_700_002_000,
                                 "mapping": mapping, "current_node": "n1999", "id": "bench"}]))  # fmt: skip


# a reply that ended, however: the base model sometimes sends an empty reply (stored as an error), and
# waiting for a `complete` one would count two minutes of idling as streaming time
FOLDCHAT_REPLIES = "SELECT COUNT(*) FROM messages WHERE role = 'assistant' AND status != 'streaming'"
ELIA_REPLIES = "SELECT COUNT(*) FROM message WHERE role = 'assistant'"


TYPING_SETTLES = 0.5  # seconds for a typed prompt to be drawn and counted before it is sent


def stream_cpu(
    terminal: Terminal, pid: int, replies: Callable[[], int], prompts: list[str], send_key: str = "Enter"
) -> tuple[float, float, float]:
    """CPU share of `pid` and its helpers (not the model server) from sending each prompt until one more
    reply is complete (`replies()`); also CPU seconds per reply and the RSS after. The prompt is typed
    first and the clock starts at the key that sends it: typing is not streaming."""
    cpu = wall = 0.0
    for prompt in prompts:
        before = replies()
        terminal.send(prompt, literal=True)
        time.sleep(TYPING_SETTLES)
        c0, t0 = own_cpu_seconds(pid), time.perf_counter()
        terminal.send(send_key)
        deadline = time.perf_counter() + 120
        while replies() <= before and time.perf_counter() < deadline:
            time.sleep(0.01)
        cpu += own_cpu_seconds(pid) - c0
        wall += time.perf_counter() - t0
        time.sleep(0.3)
    return 100 * cpu / wall, cpu / len(prompts), rss_mb(pid)


def completed_replies(db: Path, query: str = FOLDCHAT_REPLIES) -> Callable[[], int]:
    """Finished replies in an app's database (both apps write a reply's row/status when it ends)."""

    def count() -> int:
        try:
            with sqlite3.connect(db) as conn:
                return int(conn.execute(query).fetchone()[0])
        except sqlite3.Error:
            return 0

    return count


PROMPTS = ["Tell me about the sea.", "What is a good breakfast?", "Name a famous painter.", "What is rain?"]
TURNS = PROMPTS * 2
"""The turns each CPU figure is measured over (`--rounds` sends the four prompts more times: less noise)."""


FOLDCHAT = shlex.quote(str(Path(sys.executable).parent / "foldchat"))


def foldchat_env(db: Path, config: str = os.devnull, **more: str) -> dict[str, str]:
    """The environment Foldchat runs in here: no provider key from this shell, its own database and config."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return env | {"FOLDCHAT_DATABASE": str(db), "FOLDCHAT_CONFIG": config, "TERM": "xterm-256color"} | more


def turn_length(cpu_percent: float, cpu_per_reply: float) -> float:
    """Seconds a turn lasted, from its CPU seconds and their share of a core."""
    return cpu_per_reply / (cpu_percent / 100)


def bench_foldchat(tmp: Path, streaming_only: bool = False, prompts: list[str] = TURNS) -> dict[str, float]:
    db = tmp / "foldchat.db"
    env, exe = foldchat_env(db), FOLDCHAT
    results: dict[str, float] = {}
    if not streaming_only:
        results["first paint s"] = first_paint(env, f"{exe} --new", lambda s: "Enter send" in s)
        cid = foldchat_database(db)
        terminal, elapsed = launch(env, f"{exe} --conversation {cid}", lambda s: LAST in s)
        results["2,000 messages: last visible s"] = elapsed
        results["2,000 messages: RSS MB"] = rss_mb(terminal.app_pid())
        terminal.close()
    terminal, _ = launch(env, f"{exe} --new", lambda s: "token window" in s)
    pid = terminal.app_pid()
    replies = completed_replies(db)
    stream_cpu(terminal, pid, replies, ["Hello!"])  # warm-up: litellm's first request sets up its clients
    cpu, per_reply, rss = stream_cpu(terminal, pid, replies, prompts)
    results["CPU while streaming %"] = cpu
    results["CPU s per reply"] = per_reply
    results["RSS after replies MB"] = rss
    results |= process_rss(pid)
    terminal.close()
    return results


def bench_history(tmp: Path, messages: int, prompts: list[str] = TURNS) -> dict[str, float]:
    """CPU while the local model streams, in a conversation that already holds `messages` messages: the
    screen is full from the first turn, so every turn scrolls all of it (a new one fills it first), and
    the model reads the longer context before it answers, so a turn also lasts longer."""
    db = tmp / "history.db"
    env, exe = foldchat_env(db), FOLDCHAT
    # short questions and answers, as a daily conversation holds
    cid = conversation_database(
        db, messages, lambda n: f"Question {n}: what makes rain?", lambda n: f"Answer {n}: **water** from `clouds`."
    )
    terminal, _ = launch(env, f"{exe} --conversation {cid}", lambda s: "token window" in s)
    replies = completed_replies(db)
    stream_cpu(terminal, terminal.app_pid(), replies, ["Hello!"])  # warm-up
    cpu, per_reply, _ = stream_cpu(terminal, terminal.app_pid(), replies, prompts)
    terminal.close()
    return {f"{messages} messages open: CPU streaming %": cpu, f"{messages} messages open: CPU s/reply": per_reply}


LONG_PARAGRAPH = (
    "The tide comes in twice a day, pulled by the moon and, less, by the sun; the **spring tides** "
    "of new and full moon rise highest, and the `neap` tides between them barely move.\n\n"
)
LONG_CODE = "```python\ndef tide(hour):\n\n    return 2.1 * math.cos(hour / 12.42 * 2 * math.pi)\n```\n\n"
LONG_REPLY = "# The sea\n\n" + (LONG_PARAGRAPH * 3 + "- one point\n- another point\n\n" + LONG_CODE) * 6


def bench_long_reply(tmp: Path, pace: float = 0.02) -> dict[str, float]:
    """CPU of the app while one long Markdown reply (~1,000 chunks) streams at a local model's pace.

    The local model here replies in a sentence, so the per-chunk cost of the UI is measured with a
    loopback OpenAI-format server (tests/servers/fake_openai.py), reached through litellm as a hosted
    model is (the local model's own server is read directly, at a lower cost per chunk): one word per
    chunk, `pace` seconds apart (50 chunks/s by default)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from servers.fake_openai import FakeOpenAI

    server = FakeOpenAI().start()
    server.reply, server.pace = LONG_REPLY, pace
    config = tmp / "long.toml"
    config.write_text(
        f'default_model = "fake"\n[models.fake]\nmodel = "openai/fake-model"\napi_base = "{server.base_url}"\n'
        'api_key_env = "FAKE_KEY"\ncontext_window = 128000\n'
    )
    db = tmp / "long.db"
    env, exe = foldchat_env(db, str(config), FAKE_KEY="sk-bench"), FOLDCHAT
    try:
        terminal, _ = launch(env, f"{exe} --new", lambda s: "token window" in s)
        pid = terminal.app_pid()
        replies = completed_replies(db)
        stream_cpu(terminal, pid, replies, ["Hello!"])  # warm-up
        cpu, per_reply, _ = stream_cpu(terminal, pid, replies, ["Tell me about the sea."] * 2)
        terminal.close()
    finally:
        server.stop()
    return {"long reply: CPU while streaming %": cpu, "long reply: CPU s per reply": per_reply}


def bench_floor(
    tmp: Path, turn: float | None = None, prompts: list[str] = TURNS, lines: bool = False
) -> dict[str, float]:
    """The same figures for a bare Textual chat (bench/textual_floor.py): what Textual itself costs here.

    With `turn` (seconds), only the CPU while streaming, the bare chat's reply lasting `turn`: Foldchat's
    own mean turn, so that both shares of a core are over turns of the same length. With `lines`, the
    chat's transcript is one widget drawn through the line API (`--lines`) instead of a widget per message."""
    db = tmp / f"floor-{turn}-{lines}.db"
    env = {**os.environ, "TERM": "xterm-256color"}
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'bench' / 'textual_floor.py'))} {db}"
    results: dict[str, float] = {}
    if turn is None:
        results["first paint s"] = first_paint(env, command, lambda s: "Enter send" in s)
    else:
        command += f" {turn:.3f}" + (" --lines" if lines else "")
    terminal, _ = launch(env, command, lambda s: "Enter send" in s)
    pid = terminal.app_pid()
    replies = completed_replies(db)
    stream_cpu(terminal, pid, replies, ["Hello!"])
    cpu, per_reply, rss = stream_cpu(terminal, pid, replies, prompts)
    terminal.close()
    if lines:
        return {"line-API chat at Foldchat's turn %": cpu}
    if turn is not None:
        return {"turn length s": turn_length(cpu, per_reply), "CPU at Foldchat's turn length %": cpu}
    return results | {"CPU while streaming %": cpu, "CPU s per reply": per_reply, "RSS after replies MB": rss}


def bench_elia(elia: str, tmp: Path, prompts: list[str] = TURNS) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from foldchat.engine.config import LocalModelSettings
    from foldchat.engine.local.model import LocalModelServer

    server = LocalModelServer(LocalModelSettings())
    base = server.start()
    home = tmp / "elia-home"
    (home / ".config" / "elia").mkdir(parents=True)
    (home / ".config" / "elia" / "config.toml").write_text(
        f'default_model = "openai/gemma-3-270m"\n[[models]]\nname = "openai/gemma-3-270m"\napi_base = "{base}"\n'
        f'api_key = "{server.api_key}"\n'  # the local server accepts only its session key
    )
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local/share"), "TERM": "xterm-256color", "OPENAI_API_KEY": "none"}  # fmt: skip
    subprocess.run([elia, "reset"], env=env, input="y\n", text=True, capture_output=True, timeout=60)
    results = {"first paint s": first_paint(env, elia, lambda s: "Elia v" in s)}
    export = tmp / "conversations.json"
    chatgpt_export(export)
    subprocess.run([elia, "import", str(export)], env=env, capture_output=True, input="y\n", text=True, timeout=900)
    terminal, _ = launch(env, elia, lambda s: "Two thousand" in s)
    pid = terminal.app_pid()
    terminal.send("Tab")
    time.sleep(0.3)
    start = time.perf_counter()
    terminal.send("Enter")
    try:
        terminal.wait(lambda s: LAST in s, timeout=180)
        results["2,000 messages: last visible s"] = time.perf_counter() - start
    except TimeoutError:
        results["2,000 messages: last visible s"] = float("nan")
    results["2,000 messages: RSS MB"] = rss_mb(pid)
    print("elia so far:", results, file=sys.stderr, flush=True)
    terminal.close()
    terminal, _ = launch(env, elia, lambda s: "Elia v" in s)
    pid = terminal.app_pid()
    replies = completed_replies(home / ".local/share/elia/elia.sqlite", ELIA_REPLIES)
    try:  # Elia sends with Ctrl+J; its first message opens the chat screen
        stream_cpu(terminal, pid, replies, ["Hello!"], send_key="C-j")
        cpu, per_reply, rss = stream_cpu(terminal, pid, replies, prompts, send_key="C-j")
        results["CPU while streaming %"] = cpu
        results["CPU s per reply"] = per_reply
        results["RSS after replies MB"] = rss
    except (OSError, TimeoutError) as error:
        print(f"elia streaming not measured: {error!r}"[:200], file=sys.stderr)
    terminal.close()
    server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elia", help="path to the elia executable (installed in a separate venv)")
    parser.add_argument("--streaming-only", action="store_true", help="only CPU while streaming and RSS")
    parser.add_argument("--long-reply", action="store_true", help="also a long Markdown reply (loopback server)")
    parser.add_argument("--floor", action="store_true", help="also a bare Textual chat (bench/textual_floor.py)")
    parser.add_argument("--history", type=int, metavar="N", help="also CPU while streaming with N messages open")
    parser.add_argument("--rounds", type=int, default=2, help="times the four prompts are sent per CPU figure")
    args = parser.parse_args()
    turns = PROMPTS * args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        ours = bench_foldchat(Path(tmp), args.streaming_only, turns)
        if args.history:
            ours.update(bench_history(Path(tmp), args.history, turns))
        if args.long_reply:
            ours.update(bench_long_reply(Path(tmp)))
        floor = bench_floor(Path(tmp), prompts=turns) if args.floor else {}
        if args.floor:  # a share of a core depends on the turn's length: Textual alone over Foldchat's turns
            turn = turn_length(ours["CPU while streaming %"], ours["CPU s per reply"])
            ours |= {"turn length s": turn, "CPU at Foldchat's turn length %": ours["CPU while streaming %"]}
            floor |= bench_floor(Path(tmp), turn, turns)
            floor |= bench_floor(Path(tmp), turn, turns, lines=True)
        theirs = bench_elia(args.elia, Path(tmp), turns) if args.elia else {}
    nan = float("nan")
    print(f"{'metric':<34} {'foldchat':>10} {'textual':>10} {'elia':>10} {'elia/ours':>10}")
    for key in dict.fromkeys([*ours, *floor, *theirs]):  # a row for every figure, in the order measured
        value, other = ours.get(key, nan), theirs.get(key)
        ratio = f"{other / ours[key]:.1f}x" if other and ours.get(key) else ""
        print(f"{key:<34} {value:>10.2f} {floor.get(key, nan):>10.2f} {theirs.get(key, nan):>10.2f} {ratio:>10}")


if __name__ == "__main__":
    main()
