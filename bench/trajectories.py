"""Realistic conversations for fold tests and benchmarks: what Foldchat meets in the wild.

- `agent_trajectory`: one user request, then an agent loop (SWE-agent / OpenHands shapes): `bash` runs
  of grep, pytest and git, `str_replace_editor` views and edits, `read_file` on real-looking paths, with
  pytest failures and tracebacks in the outputs.
- `readme_chat`: a ChatGPT-style chat where the user pastes a README that documents `<state_snapshot>`.
- `imported_compressed_history`: a history another tool already compressed (gemini-cli style snapshot
  with `<file_system_state>`), imported as plain messages.
- `everyday_chat`: a long trip-planning chat with names, dates, prices and booking codes.
Each returns OpenAI-format dicts plus the facts a fold must keep.
"""

from __future__ import annotations

import json
import random
from typing import Any

AGENT_SYSTEM = (
    "You are a software engineering agent working in /workspace/billing-service. Use the tools to inspect "
    "and change the repository; run the tests before you finish."
)
AGENT_REQUEST = (
    "Issue BILL-4127: `InvoiceExporter.to_csv()` drops the timezone of `issued_at` since v2.14.0, so the "
    "nightly export to s3://acme-finance/exports/ shows times shifted by 2 hours for Berlin customers. "
    "Fix it in src/billing/export/csv_writer.py, keep the public API unchanged, add a regression test in "
    "tests/export/test_csv_writer.py and make `python -m pytest tests/export -x` pass. Do not touch "
    "migrations/. Ping @marta.k in the PR description."
)
AGENT_FACTS = [
    "BILL-4127",
    "src/billing/export/csv_writer.py",
    "tests/export/test_csv_writer.py",
    "v2.14.0",
    "s3://acme-finance/exports/",
    "@marta.k",
]
DISCUSSION = [
    "In src/billing/{module}.py line {line} the datetime is converted to UTC and then formatted without an offset.",
    "That explains why Berlin invoices move by one or two hours depending on daylight saving time.",
    "I should check whether {module} is called by InvoiceExporter.to_csv() or only by the PDF path.",
    "The regression test must build an invoice issued at 09:00 Europe/Berlin and compare the ISO string.",
    "Changing the public signature is not allowed, so the fix has to stay inside the writer.",
    "Let me look at the next place where issued_at is touched before editing anything.",
    "The previous run still fails on the same assertion, so the offset is dropped earlier than I thought.",
]
MODULES = ["csv_writer", "invoice", "tax_rules", "currency", "ledger", "customers", "schedule", "pdf_renderer"]


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _source(rng: random.Random, module: str, lines: int) -> str:
    body = [
        f"{n:>6}\t    issued_at = row['issued_at'].astimezone(ZoneInfo('UTC'))  # {module}"
        if n % 17 == 0
        else f"{n:>6}\t    total += Decimal(line.amount) * Decimal('{rng.randint(1, 99)}.{rng.randint(0, 99):02d}')"
        for n in range(1, lines + 1)
    ]
    return (
        f"Here's the result of running `cat -n` on /workspace/billing-service/src/billing/{module}.py:\n"
        + "\n".join(body)
    )


def _pytest_failure(rng: random.Random, module: str) -> str:
    test = f"test_{module}_keeps_timezone_{rng.randint(1, 40)}"
    return "\n".join(
        [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0",
            "rootdir: /workspace/billing-service",
            f"collected {rng.randint(20, 90)} items",
            "",
            "tests/export/test_csv_writer.py ....F",
            "",
            "=================================== FAILURES ===================================",
            f"_________________________ {test} _________________________",
            "    def test_keeps_timezone():",
            "        row = exporter.to_csv([invoice])[1]",
            ">       assert row[3] == '2026-03-01T09:00:00+01:00'",
            "E       AssertionError: assert '2026-03-01T08:00:00' == '2026-03-01T09:00:00+01:00'",
            "",
            f"tests/export/test_csv_writer.py:{rng.randint(20, 200)}: AssertionError",
            "=========================== short test summary info ============================",
            f"FAILED tests/export/test_csv_writer.py::{test} - AssertionError",
            "1 failed, 4 passed in 0.42s",
        ]
        + [f"    frame {n}: billing/export/{module}.py line {rng.randint(1, 400)}" for n in range(rng.randint(20, 60))]
    )


def _exchange(rng: random.Random, step: int) -> list[dict[str, Any]]:
    module = MODULES[step % len(MODULES)]
    call_id = f"toolu_{step:05d}"
    kind = step % 5
    if kind == 0:
        call = _call(call_id, "bash", {"command": f"grep -rn 'issued_at' src/billing/{module}.py | head -50"})
        output = "\n".join(f"src/billing/{module}.py:{n}:    issued_at = row['issued_at']" for n in range(1, 60))
    elif kind == 1:
        call = _call(
            call_id,
            "str_replace_editor",
            {"command": "view", "path": f"/workspace/billing-service/src/billing/{module}.py"},
        )
        output = _source(rng, module, rng.randint(60, 160))
    elif kind == 2:
        call = _call(call_id, "bash", {"command": "python -m pytest tests/export -x -q"})
        output = _pytest_failure(rng, module) + "\n[exit code: 1]"
    elif kind == 3:
        call = _call(call_id, "read_file", {"path": f"docs/billing/{module}.md"})
        output = "\n".join(f"{module} notes line {n}: amounts are Decimal, never float." for n in range(80))
    else:
        args = {
            "command": "str_replace",
            "path": "/workspace/billing-service/src/billing/export/csv_writer.py",
            "old_str": "issued_at.strftime('%Y-%m-%dT%H:%M:%S')",
            "new_str": "issued_at.isoformat(timespec='seconds')",
        }
        call = _call(call_id, "str_replace_editor", args)
        output = "The file /workspace/billing-service/src/billing/export/csv_writer.py has been edited."
    thought = f"Step {step}: the failure points at {module}. " + " ".join(
        rng.choice(DISCUSSION).format(module=module, line=rng.randint(10, 400)) for _ in range(rng.randint(6, 12))
    )
    return [
        {"role": "assistant", "content": thought, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "name": call["function"]["name"], "content": output},
    ]


def agent_trajectory(approx_tokens: int, seed: int = 11) -> tuple[list[dict[str, Any]], list[str]]:
    """System prompt, one request, then tool exchanges until about `approx_tokens` (≈4 chars a token)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [
        {"role": "system", "content": AGENT_SYSTEM},
        {"role": "user", "content": AGENT_REQUEST},
    ]
    size, step = 0, 0
    while size < approx_tokens * 4:
        exchange = _exchange(rng, step)
        size += sum(len(m.get("content") or "") + 80 for m in exchange)
        out += exchange
        step += 1
    return out, list(AGENT_FACTS)


PASTED_README = """# foldchat

Foldchat folds long conversations. When the context outgrows the window, the old turns become one
snapshot like this:

```
<state_snapshot depth="1" covers="1..84" tokens_before="91000">
<overall_goal>Ship the billing export</overall_goal>
<user_requests>
- fix BILL-1
</user_requests>
</state_snapshot>
```

Install with `pipx install foldchat`; configure in ~/.config/foldchat/config.toml.
"""


def everyday_chat(turns: int, seed: int = 5) -> tuple[list[dict[str, Any]], list[str]]:
    """A trip-planning chat: each turn a user request with facts, then a long assistant answer."""
    rng = random.Random(seed)
    cities = ["Lisbon", "Porto", "Seville", "Granada", "Valencia", "Madrid", "Bilbao", "Girona"]
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful travel assistant."}]
    facts: list[str] = []
    for turn in range(turns):
        city = cities[turn % len(cities)]
        code = f"BK-{rng.randint(10000, 99999)}"
        date = f"2026-0{rng.randint(4, 9)}-{rng.randint(10, 28)}"
        facts += [code, date]
        out.append(
            {
                "role": "user",
                "content": f"For {city} we arrive on {date}; the hotel booking is {code} for Ana Ruiz, "
                f"budget {rng.randint(80, 240)} EUR a night. What should we see in two days?",
            }
        )
        answer = " ".join(
            f"In {city}, option {n} is a walk through the old town, then lunch near the market (about "
            f"{rng.randint(12, 40)} EUR), and a museum that opens at 10:00."
            for n in range(rng.randint(25, 45))
        )
        out.append({"role": "assistant", "content": answer})
    return out, facts


def readme_chat(turns: int = 12) -> tuple[list[dict[str, Any]], list[str]]:
    """An everyday chat in which one user message is a pasted README documenting `<state_snapshot>`."""
    out, facts = everyday_chat(turns)
    paste = {
        "role": "user",
        "content": "Can you explain this README of a tool I found (ref DOC-7788)?\n\n" + PASTED_README,
    }
    reply = {"role": "assistant", "content": "It describes a chat app that summarizes old turns into a snapshot. " * 8}
    out[3:3] = [paste, reply]
    return out, [*facts, "DOC-7788"]


FOREIGN_SNAPSHOT = """<state_snapshot>
    <overall_goal>Migrate the nightly ETL from cron to Airflow DAG etl_nightly_v3.</overall_goal>
    <key_knowledge>
        - Airflow runs on airflow.internal:8080; the DAG id is etl_nightly_v3.
    </key_knowledge>
    <file_system_state>
        - MODIFIED: dags/etl_nightly_v3.py (added retries=3)
        - CREATED: tests/dags/test_etl_nightly_v3.py
        - READ: config/airflow/connections.yaml
    </file_system_state>
    <recent_actions>
        - Ran `pytest tests/dags -q` → 12 passed
    </recent_actions>
    <current_plan>
        1. [DONE] Port the cron script.
        2. [TODO] Backfill 2026-01-01..2026-01-31.
    </current_plan>
</state_snapshot>"""


def imported_compressed_history(turns: int = 10) -> tuple[list[dict[str, Any]], list[str]]:
    """A history gemini-cli had already compressed, imported: its snapshot is an ordinary user message."""
    out, facts = everyday_chat(turns, seed=9)
    out[1:1] = [
        {"role": "user", "content": FOREIGN_SNAPSHOT},
        {"role": "assistant", "content": "Got it. Thanks for the additional context!"},
    ]
    return out, [
        *facts,
        "dags/etl_nightly_v3.py",
        "tests/dags/test_etl_nightly_v3.py",
        "config/airflow/connections.yaml",
    ]
