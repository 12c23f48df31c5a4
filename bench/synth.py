"""Synthetic but real-looking coding conversations, for benchmarks and tests.

`coding_conversation(approx_tokens, seed)` returns OpenAI-format messages: users asking for changes
with planted facts (ticket ids, dates, paths, names, versions), an assistant that reads files, runs
shell commands (some failing with a traceback), searches and edits, in parallel tool calls too.
`PLANTED_FACTS` lists every fact a fold must keep.
"""

from __future__ import annotations

import json
import random
from typing import Any

MODULES = ["billing", "auth", "search", "export", "notifications", "reports", "ingest", "cache"]
PEOPLE = ["Priya Raman", "Tomasz Nowak", "Aiko Tanaka", "Lucía Fernández", "Kwame Mensah", "Sofia Lindqvist"]

USER_TEMPLATES = [
    "Ticket {ticket}: the {module} job fails since {date}. Please look at {path} and fix it; "
    "{person} reported it on the {version} release.",
    "Next, for {ticket}, add a regression test under tests/{module}/test_{module}_regression.py. "
    "Keep compatibility with {version}; {person} will review it before {date}.",
    "Can you check why {path} is slow? The deadline for {ticket} is {date} and {person} needs numbers.",
    "Please never change the public API of {path} without asking me first, and always run the tests "
    "after an edit. This is for {ticket} ({version}).",
    "Refactor the retry logic in {path} for {ticket}. {person} suggested exponential backoff; "
    "ship it in {version} by {date}.",
]

CODE_LINE = [
    "def {name}(self, request, *, retries=3):",
    "    result = self.client.fetch(request.id, timeout=30)",
    "    if result.status != 200:",
    "        raise {module_title}Error(f'bad status {{result.status}}')",
    "    return [row for row in result.rows if row.get('active')]",
    "class {module_title}Service:",
    "    # TODO: remove the legacy path once {ticket} ships",
    "    items = sorted(items, key=lambda item: (item.priority, item.created_at))",
    "import logging, json, datetime",
    "logger = logging.getLogger(__name__)",
]


def _facts(rng: random.Random, turn: int) -> dict[str, str]:
    module = rng.choice(MODULES)
    return {
        "ticket": f"{module[:3].upper()}-{1000 + turn * 37 + rng.randint(0, 30)}",
        "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "path": f"src/{module}/{rng.choice(['service', 'worker', 'api', 'models'])}_{turn}.py",
        "person": rng.choice(PEOPLE),
        "version": f"v{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "module": module,
    }


def _code(rng: random.Random, lines: int, facts: dict[str, str]) -> str:
    out = []
    for n in range(lines):
        template = rng.choice(CODE_LINE)
        out.append(
            f"{n + 1:5d}  "
            + template.format(
                name=f"handle_{rng.randint(1, 999)}",
                module_title=facts["module"].title(),
                ticket=facts["ticket"],
            )
        )
    return "\n".join(out)


def coding_conversation(approx_tokens: int, seed: int = 7) -> tuple[list[dict[str, Any]], list[str]]:
    """Messages of about `approx_tokens` tokens (≈4 chars/token) and the planted user facts."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding assistant working in the user's repository."}
    ]
    planted: list[str] = []
    chars = 0
    turn = 0
    call_counter = 0
    while chars < approx_tokens * 4:
        facts = _facts(rng, turn)
        request = rng.choice(USER_TEMPLATES).format(**facts)
        planted += [facts[k] for k in ("ticket", "date", "path", "person", "version") if facts[k] in request]
        messages.append({"role": "user", "content": request})
        for step in range(rng.randint(2, 4)):
            calls = []
            kinds = rng.sample(["read", "shell", "search", "edit"], k=rng.randint(1, 2))
            for kind in kinds:
                call_counter += 1
                call_id = f"call_{seed}_{call_counter:05d}"
                if kind == "read":
                    name, args = "read_file", {"path": facts["path"]}
                    result = _code(rng, rng.randint(60, 220), facts)
                elif kind == "shell":
                    cmd = rng.choice(["pytest -q tests/", f"python -m {facts['module']}.cli --check", "ruff check ."])
                    failed = rng.random() < 0.4
                    body = _code(rng, rng.randint(10, 60), facts)
                    if failed:
                        result = (
                            f'{body}\nTraceback (most recent call last):\n  File "{facts["path"]}", line 42\n'
                            f"{facts['module'].title()}Error: bad status 502\nexit code: 1"
                        )
                    else:
                        result = f"{body}\n{rng.randint(20, 300)} passed in {rng.randint(1, 30)}.2s\nexit code: 0"
                    name, args = "bash", {"command": cmd}
                elif kind == "search":
                    pattern = rng.choice(["retry", "timeout", facts["module"] + "_id", "TODO"])
                    hits = [
                        f"src/{facts['module']}/file_{i}.py:{rng.randint(1, 400)}: {pattern} = 3"
                        for i in range(rng.randint(1, 12))
                    ]
                    name, args = "grep", {"pattern": pattern, "path": "src/"}
                    result = "\n".join(hits)
                else:
                    name, args = (
                        "edit_file",
                        {
                            "path": facts["path"],
                            "old_str": "retries=3",
                            "new_str": f"retries={rng.randint(4, 9)}",
                        },
                    )
                    result = f"Edited {facts['path']}: 1 replacement"
                calls.append((call_id, name, args, result))
            messages.append(
                {
                    "role": "assistant",
                    "content": None if step else f"Let me look at {facts['path']} first. I'll check the failing part.",
                    "tool_calls": [
                        {"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                        for cid, n, a, _ in calls
                    ],
                }
            )
            for cid, n, _a, result in calls:
                messages.append({"role": "tool", "tool_call_id": cid, "name": n, "content": result})
                chars += len(result)
        answer = (
            f"I fixed the retry handling in {facts['path']}; we'll use exponential backoff instead of a fixed "
            f"sleep. The tests pass now. Do you want me to update the changelog for {facts['version']}?"
        )
        messages.append({"role": "assistant", "content": answer})
        chars += len(request) + len(answer) + 200
        turn += 1
    messages.append({"role": "user", "content": "Thanks. Now summarize what is left to do before the release."})
    return messages, list(dict.fromkeys(planted))
