"""Folding 1 MB adversarial pastes: every pattern applied to user text must run in linear time.

Run: .venv/bin/python bench/adversarial_bench.py
Each paste (hex, base64, punctuation runs, dots / at-signs / dashes, a path-like run) is one user message
of ~1 MB in a short chat, folded in-process through `fold_context` with the rules summarizer and the
real litellm counter (warmed first, so the time is the fold, not the tokenizer's start-up).
Target: every fold under 1 s.
"""

from __future__ import annotations

import time

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter

MODEL = "gpt-4o"
SIZE = 1_000_000
UNITS = {
    "hex": "0123456789abcdef",
    "base64": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkrLw==",
    "punctuation": "!?.,;:-_=+*&^%$#@~()[]{}<>/\\|'\"`",
    "dots": ".",
    "at-signs": "@",
    "dashes": "-",
    "dot-dash-at": "a.-@",
    "path-like": "a/b.",
    "digits-commas": "1,",
}


def adversarial_chat(unit: str) -> list[Message]:
    paste = (unit * (SIZE // len(unit) + 1))[:SIZE]
    return parse_messages(
        [
            {"role": "user", "content": f"Here is the dump:\n{paste}"},
            {"role": "assistant", "content": "That looks like encoded data."},
            {"role": "user", "content": "Can you decode the first line?"},
            {"role": "assistant", "content": "It does not decode to text."},
            {"role": "user", "content": "Ok, thanks. What next?"},
        ]
    )


def main() -> None:
    counter = LiteLLMCounter(MODEL)
    counter.count([Message.user("warm up the tokenizer")])
    print(f"{'paste (1 MB)':<14} {'tokens':>10} {'fold s':>7} {'target':>7}")
    for name, unit in UNITS.items():
        messages = adversarial_chat(unit)
        counter.count(messages)  # the gauge has already counted what the user sent
        request = FoldRequest(counter=counter, window=128_000, summarizer=RulesSummarizer(), force=True)
        start = time.perf_counter()
        result = fold_context(messages, request)
        elapsed = time.perf_counter() - start
        verdict = "ok" if elapsed < 1.0 else "SLOW"
        print(f"{name:<14} {result.report.tokens_before:>10,} {elapsed:>7.3f} {verdict:>7}")


if __name__ == "__main__":
    main()
