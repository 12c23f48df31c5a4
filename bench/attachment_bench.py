"""A 40-turn coding chat with ten attached files (3-60 KB, real source and text from this repository) and
two images, folded at 8k, 32k and 128k windows: tokens before and after, how many attachments stay
verbatim, whether every pruned one comes back from `recall` by its name, and the fold time.

Run: .venv/bin/python bench/attachment_bench.py [--windows 8192 32768 131072]
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from foldchat.engine.attachments import attachments_in, is_stubbed, read_attachment, user_message
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message
from foldchat.engine.recall import Original, recall
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for

ROOT = Path(__file__).resolve().parent.parent
MODEL = "gpt-4o"
RESERVE = 1024


def png(width: int, height: int) -> bytes:
    """A valid grey PNG of the given size (no image library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * (width * 3) for _ in range(height))
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


TARGET_KB = (3, 5, 8, 12, 16, 22, 28, 36, 48, 60)


def files() -> list[Path]:
    """Ten text files of this repository, the nearest to 3, 5, 8 ... 60 KB (each once)."""
    pool = [*ROOT.glob("engine/**/*.py"), *ROOT.glob("tui/**/*.py"), *ROOT.glob("tests/**/*.py"), ROOT / "README.md"]
    chosen: list[Path] = []
    for kb in TARGET_KB:
        rest = [p for p in pool if p.name not in {c.name for c in chosen}]  # a name is how recall finds it
        chosen.append(min(rest, key=lambda p: abs(p.stat().st_size - kb * 1024)))
    return chosen


def chat() -> list[Message]:
    attached = [read_attachment(p.name, p.read_bytes(), 1 << 20) for p in files()]
    images = [read_attachment(f"screenshot-{n}.png", png(64 * n, 48 * n), 1 << 20) for n in (1, 2)]
    messages: list[Message] = []
    for turn in range(40):
        with_files = [attached[turn // 4]] if turn % 4 == 0 and turn // 4 < len(attached) else []
        with_files += [images[turn // 20]] if turn % 20 == 10 else []
        ask = f"Turn {turn}: what does this part do, and is the error handling right in step {turn}?"
        messages.append(user_message(ask, with_files))
        reply = (
            f"In step {turn} the code reads its input, checks it and hands it on. The function names say what "
            "they do; the errors are one line each. I would keep the structure and add a test for the edge "
            f"case where the input is empty (step {turn})."
        )
        messages.append(Message.assistant(reply * 3))
    messages.append(Message.user("Summing up: which file should I refactor first?"))
    return [m.evolve(key=i) for i, m in enumerate(messages)]


def measure(messages: list[Message], window: int, counter) -> dict[str, object]:
    request = FoldRequest(counter, window, RulesSummarizer(), reserved_output=RESERVE)  # as a send would fold
    before = counter.count(messages)  # counted first: litellm's import is not the fold's time
    started = time.perf_counter()
    result = fold_context(messages, request)
    elapsed = (time.perf_counter() - started) * 1000
    parts = [p for m in result.messages if isinstance(m.content, tuple) for p in m.content]
    marked = [p for p in parts if p.get("foldchat_attachment") is not None]
    verbatim = {str(p["foldchat_attachment"]["name"]) for p in marked if not is_stubbed(p)}
    stubbed = {str(p["foldchat_attachment"]["name"]) for p in marked if is_stubbed(p)}
    everything = {str(meta["name"]) for m in messages for meta in attachments_in(m)}
    originals = [Original(m.key + 1, m) for m in messages if m.key is not None]
    gone = everything - verbatim  # stubbed, or folded into the snapshot (its trail names them)
    recallable = sum(1 for name in gone if f"[attached {name}" in recall(originals, name).split("\n", 2)[1])
    return {
        "before": before,
        "after": result.report.tokens_after,
        "verbatim": len(verbatim),
        "stubbed": len(stubbed),
        "folded": len(gone - stubbed),
        "recallable": f"{recallable}/{len(gone)}",
        "fold ms": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[8192, 32768, 131072])
    args = parser.parse_args()
    counter = counter_for(MODEL)
    messages = chat()
    total = sum(len(attachments_in(m)) for m in messages)
    sizes = ", ".join(f"{p.name} {p.stat().st_size // 1024} KB" for p in files())
    print(f"{len(messages)} messages, {total} attachments ({sizes}, two PNG screenshots)")
    print(f"{'window':>7} {'before':>8} {'after':>7} {'verbatim':>8} {'stubbed':>7} {'folded':>6} {'recallable':>10} "
          f"{'fold ms':>8}")  # fmt: skip
    for window in args.windows:
        row = measure(messages, window, counter)
        print(
            f"{window:>7} {row['before']:>8,} {row['after']:>7,} {row['verbatim']:>8} {row['stubbed']:>7} "
            f"{row['folded']:>6} {row['recallable']:>10} {row['fold ms']:>8.0f}"
        )


if __name__ == "__main__":
    main()
