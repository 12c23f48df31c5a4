"""The artifact trail: every tool shape, grouped by file, kept within the snapshot budget."""

from __future__ import annotations

import json

import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.fold.fit import fit_snapshot
from foldchat.engine.messages import parse_messages
from foldchat.engine.references import body
from foldchat.engine.summarizers import RulesSummarizer, SummaryRequest
from foldchat.engine.summarizers.artifacts import RANK_CHANGED, RANK_READ, terse, trail_rank

from fixtures.agent_shapes import SHAPES, trajectory


def _summary(shape: str):
    raw, truth = trajectory(shape, steps=150)
    messages = [m for m in parse_messages(raw) if m.role != "system"]
    return RulesSummarizer().summarize(SummaryRequest(messages)), truth


def _size(candidate: snap.Snapshot) -> int:
    return len(snap.render_message_text(candidate)) // 4  # a fixed proxy: the fold tests count real tokens


@pytest.mark.parametrize("shape", SHAPES)
def test_every_tool_shape_keeps_every_path_and_command(shape):
    summary, truth = _summary(shape)
    text = " ".join(snap.render(summary).split())
    assert all(path in text for path in truth.paths)
    assert all(command[:40] in text for command in truth.commands)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("budget", [1200, 4800])
def test_a_tight_budget_drops_reads_and_looks_never_an_edited_path(shape, budget):
    summary, truth = _summary(shape)
    fitted = fit_snapshot(summary, budget, _size)
    text = " ".join(snap.render(fitted).split())
    assert _size(fitted) <= budget
    assert all(path in text for path in truth.changed)
    distinct = {command[:40] for command in truth.commands}  # the target's measure: distinct by 40 characters
    assert sum(command in text for command in distinct) >= 0.8 * len(distinct)
    assert sum(path in text for path in truth.paths) >= 0.9 * len(truth.paths)


def test_the_same_command_run_twelve_times_is_one_line_with_its_last_outcome():
    messages = [{"role": "user", "content": "Make the tests pass."}]
    for n in range(12):
        cid = f"c{n}"
        verdict = "=== 3 passed, 1 failed in 0.4s ===" if n < 11 else "=== 4 passed in 0.3s ==="
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command": "pytest -q"}'},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": cid, "content": verdict})
    s = RulesSummarizer().summarize(SummaryRequest(parse_messages(messages)))
    lines = [a for a in s.artifacts if "pytest -q" in a]
    assert lines == ["ran `pytest -q` ×12 (11 failed) → last: ok, 4 passed (#2, #4, …, #24)"]


def test_swe_agent_editor_result_names_the_edited_lines():
    summary, _ = _summary("swe-agent")
    assert any(": edited" in a and "lines " in a for a in summary.artifacts)


def test_mini_swe_agent_observations_are_not_user_requests():
    summary, _ = _summary("mini-swe-agent")
    assert not any("<returncode>" in r for r in summary.user_requests)
    assert any(a.startswith("ran `cat") for a in summary.artifacts)


def test_identifier_lists_hold_no_shouted_instruction_words_or_closing_tags():
    summary, _ = _summary("mini-swe-agent")
    knowledge = " ".join(summary.key_knowledge)
    for word in ("IMPORTANT", "LEAST", "THOUGHT", "/important", "/pr_description"):
        listed = {
            i for item in summary.key_knowledge if item.startswith("mentioned: ") for i in body(item)[11:].split(", ")
        }
        assert word not in listed, knowledge


def test_trail_rank_never_drops_a_change():
    assert trail_rank("src/a.py: edited×3 (lines 1–4), read×2") == RANK_CHANGED
    assert trail_rank("src/a.py: read×2 (30 lines)") == RANK_READ
    assert trail_rank("src/a.py: read (created by hand)") == RANK_READ  # a verb in the details is no change
    assert trail_rank("edited ×3 src/a.py (last: lines 1–4)") == RANK_CHANGED
    assert trail_rank("created, deleted /tmp/x.py") == RANK_CHANGED
    assert trail_rank("read src/a.py ×4") > trail_rank("ran `ls -la` → ok") > trail_rank("ran `make` → exit 2")


def test_apply_patch_and_claude_multiedit_shapes():
    patch = "--- a/src/a.py\n+++ b/src/a.py\n@@\n-x\n+y\n--- /dev/null\n+++ b/src/new.py\n@@\n+z\n"
    messages = [
        {"role": "user", "content": "Apply it."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "p",
                    "type": "function",
                    "function": {"name": "apply_patch", "arguments": f'{{"patch": {patch!r}}}'.replace("'", '"')},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "p", "content": "Done"},
    ]
    s = RulesSummarizer().summarize(SummaryRequest(parse_messages(messages)))
    assert "src/a.py: edited (apply_patch) (#2)" in s.artifacts
    assert "src/new.py: created (apply_patch) (#2)" in s.artifacts


def _bash_session(commands: list[tuple[str, str]]) -> list[str]:
    messages: list[dict] = [{"role": "user", "content": "Fix the rounding bug."}]
    for n, (command, output) in enumerate(commands):
        args = json.dumps({"command": command})
        call = {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": args}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": output})
    return RulesSummarizer().summarize(SummaryRequest(parse_messages(messages))).artifacts


def test_a_path_is_named_once_with_compact_verbs_and_terse_drops_only_details():
    trail = _bash_session(
        [
            ("cat src/x.py", "a\nb"),
            ("sed -i 's/total = round(a, 2)/total = q(a)/' src/x.py", ""),
            ("sed -i 's/rate = 1/rate = 2/' src/x.py", ""),
        ]
    )
    files = [line for line in trail if line.startswith("src/x.py")]
    assert files == ["src/x.py: edited×2 (sed -i), read (#2, #4, #6)"]
    assert terse(files[0]) == "src/x.py: edited×2, read (#2, #4, #6)"
    # a quoted sed script is one word, not the path `s/total`
    assert not any(line.startswith(("s/total", "'s/")) for line in trail)


def test_commands_alike_in_their_first_40_characters_are_one_line_with_their_variants():
    run = "cd /testbed && python -m pytest -q tests/"
    trail = _bash_session(
        [
            (f"{run}test_auth.py", "1 failed, 3 passed"),
            (f"{run}test_billing.py", "4 passed"),
            (f"{run}test_auth.py", "4 passed"),
        ]
    )
    lines = [line for line in trail if "pytest" in line]
    assert lines == [
        f"ran `{run}test_…` ×3 (1 failed; 2 variants, newest first: auth.py, billing.py) → last: ok, 4 passed"
        " (#2, #4, #6)"
    ]
    assert terse(lines[0]) == f"ran `{run}test_…` ×3 → ok, 4 passed (#2, #4, #6)"


def test_a_file_only_read_by_a_command_naming_it_has_no_second_line():
    trail = _bash_session([("cat src/only_read.py", "x = 1"), ("ls -la src", "only_read.py")])
    assert trail == ["ran `cat src/only_read.py` → ok (#2)", "ran `ls -la src` → ok (#4)"]


def test_the_same_search_run_again_is_one_line_with_its_last_result():
    messages: list[dict] = [{"role": "user", "content": "Where is TODO?"}]
    for n, hits in enumerate(["a.py:1: TODO", "a.py:1: TODO\nb.py:2: TODO"]):
        args = json.dumps({"pattern": "TODO", "path": "src"})
        call = {"id": f"g{n}", "type": "function", "function": {"name": "Grep", "arguments": args}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"g{n}", "content": hits},
        ]
    trail = RulesSummarizer().summarize(SummaryRequest(parse_messages(messages))).artifacts
    assert trail == ["searched 'TODO' in src ×2 → last: 2 matching lines (a.py, b.py) (#2, #4)"]


def test_a_goal_repeating_a_request_and_repeated_requests_are_said_once_before_the_trail_shrinks():
    request = (
        "Fix PAY-4411 in src/billing/invoice.py: totals are off by one cent when a discount applies, v3.8.1. "
        "It was reported on 2026-03-02 by the finance team; the rounding must follow ROUND_HALF_UP and the "
        "tests in tests/billing/test_invoice.py must keep passing without changes."
    )
    summary = snap.Snapshot(
        overall_goal=request,
        user_requests=[request, "Keep going.", "Keep going.", "Keep going."],
        artifacts=[f"ran `pytest -q tests/test_{n}.py` → exit 1, 1 failed" for n in range(6)],
    )
    shorter = _size(summary) - 40
    fitted = fit_snapshot(summary, shorter, _size)
    assert fitted.artifacts == summary.artifacts
    assert fitted.user_requests == [request, "Keep going. (×3)"]
    assert len(fitted.overall_goal) <= 100
