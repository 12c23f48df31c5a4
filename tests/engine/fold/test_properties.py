"""Property tests: random histories in, docs/design.md §3 invariants out."""

import json

import litellm
from foldchat.engine import snapshot as snap
from foldchat.engine.alternation import current_turn_start, repair
from foldchat.engine.errors import CurrentTurnTooLarge
from foldchat.engine.fold.condense import is_condensed
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.fold.prune import is_pruned
from foldchat.engine.fold.split import newest_exchange_start
from foldchat.engine.invariants import violations
from foldchat.engine.messages import dump_messages, parse_messages
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import LiteLLMCounter
from hypothesis import HealthCheck, given, settings, strategies as st

MODEL = "gpt-4o"
COUNTER = LiteLLMCounter(MODEL)
words = st.sampled_from(
    [
        "fix",
        "PAY-12",
        "src/app.py",
        "2026-01-02",
        "v1.2.3",
        "Ana Ruiz",
        "the",
        "bug",
        "ok",
        "?",
        "never",
        "ünï",
    ]
)
text = st.lists(words, min_size=1, max_size=25).map(" ".join)
huge = st.integers(300, 3000).map(lambda n: "data " * n)
PASTED_README = (
    '## Snapshot format\nFoldchat writes <state_snapshot depth="1"><user_requests>\n- x\n</user_requests>'
    "</state_snapshot> into the context."
)


@st.composite
def histories(draw):
    ids = iter(range(10_000))
    out = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": draw(text)})
    if draw(st.booleans()):
        prior = Snapshot(user_requests=[draw(text)], covers="0..9", depth=draw(st.integers(1, 3)))
        out += [
            {"role": "user", "content": snap.render_message_text(prior), "name": snap.SNAPSHOT_NAME},
            {"role": "assistant", "content": snap.ACKNOWLEDGEMENT},
        ]
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(
            st.sampled_from(
                [
                    "user",
                    "user",
                    "assistant",
                    "tools",
                    "tools",
                    "orphan",
                    "image",
                    "reasoning",
                    "pasted",
                    "huge",
                    "system",
                ]
            )
        )
        if kind == "user":
            out.append({"role": "user", "content": draw(text)})
        elif kind == "assistant":
            out.append({"role": "assistant", "content": draw(text)})
        elif kind == "image":
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": draw(text)},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    ],
                }
            )
        elif kind == "reasoning":
            out.append(
                {
                    "role": "assistant",
                    "content": draw(text),
                    "reasoning_content": draw(text),
                    "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}],
                }
            )
        elif kind == "pasted":  # a README that documents the snapshot format: an ordinary message
            out.append({"role": "user", "content": f"{draw(text)}\n{PASTED_README}\n{draw(text)}"})
        elif kind == "huge":
            out.append({"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(huge)})
        elif kind == "system":
            out.append({"role": "system", "content": draw(text)})
        elif kind == "orphan":
            out.append({"role": "tool", "tool_call_id": f"ghost{next(ids)}", "content": draw(text)})
        else:
            out += exchange(draw, ids)
    if draw(st.booleans()):
        out.append({"role": "user", "content": draw(text)})
    for _ in range(draw(st.integers(0, 8))):  # a long current turn: an agent loop after one request
        out += exchange(draw, ids, complete=True)
    return out


def exchange(draw, ids, complete=False):
    """An assistant tool-call message and its results (some missing or shuffled unless `complete`)."""
    n = draw(st.integers(1, 3))
    calls = [f"call_{next(ids)}__thought__x" if draw(st.booleans()) else f"c{next(ids)}" for _ in range(n)]
    out = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": c,
                    "type": "function",
                    "function": {
                        "name": draw(st.sampled_from(["bash", "read_file", "grep"])),
                        "arguments": json.dumps({"command": draw(text)}),
                    },
                }
                for c in calls
            ],
        }
    ]
    answered = calls if complete or draw(st.booleans()) else draw(st.lists(st.sampled_from(calls), unique=True))
    for c in draw(st.permutations(answered)):
        out.append({"role": "tool", "tool_call_id": c, "content": draw(st.one_of(text, huge)) + "\nexit code: 1"})
    return out


def check(raw, window, force):
    messages = snap.mark_named_snapshots(parse_messages(raw))
    repaired = repair(messages).messages
    systems = [m for m in repaired if m.role == "system"]
    rest = repaired[len(systems) :]
    start = current_turn_start(rest)
    newest = rest[newest_exchange_start(rest, start) :]
    try:
        result = fold_context(
            messages,
            FoldRequest(
                counter=COUNTER, window=window, summarizer=RulesSummarizer(), force=force, reserved_output=window // 10
            ),
        )
    except CurrentTurnTooLarge:
        assert COUNTER.count([*systems, *rest[start : start + 1], *newest]) + window // 10 > window
        return
    out, r = result.messages, result.report
    assert violations(out, systems) == []
    assert r.tokens_after == (
        litellm.token_counter(model=MODEL, messages=dump_messages(out), use_default_image_token_count=True)
        if out
        else 0
    )
    assert not rest or snap.is_snapshot_message(rest[start]) or rest[start] in out  # the user message is kept...
    assert out[len(out) - len(newest) :] == newest  # ...and so is the newest exchange after it
    if not r.compressed:
        assert out == repaired
        return
    assert r.tokens_after < r.tokens_before  # a fold always makes the context smaller
    if result.snapshot is None:  # pruned only: every message is there, old tool outputs as stubs
        assert len(out) == len(repaired) and all(a == b or is_pruned(a) for a, b in zip(out, repaired, strict=True))
        return
    marked = [m for m in out if snap.is_snapshot_message(m)]
    assert len(marked) == 1 and marked[0].text.count(snap.SNAPSHOT_OPEN) == 1
    for kept in out[len(out) - r.kept_messages :]:
        assert kept in repaired or is_condensed(kept) or is_pruned(kept)  # no kept message is rewritten
    if r.over_target:  # only when even the user message and the newest exchange cannot get under the target
        assert r.kept_messages <= len(rest) - start


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@SETTINGS
@given(histories(), st.sampled_from([1_500, 4_000, 16_000]))
def test_invariants_hold_without_force(raw, window):
    check(raw, window, force=False)


@SETTINGS
@given(histories(), st.sampled_from([1_500, 4_000, 16_000]))
def test_invariants_hold_with_force(raw, window):
    check(raw, window, force=True)


# found by hypothesis in CI: the snapshot came out a token bigger than the room the tail left it, the
# fold kept the earlier prompt's tool round too and ended over target although the last prompt alone fit
def _users(*texts):
    return [{"role": "user", "content": t} for t in texts]


def _bash_calls(*ids):
    calls = [
        {"id": c, "type": "function", "function": {"name": "bash", "arguments": '{"command": "fix"}'}} for c in ids
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _failed(call_id, output="fix"):
    return {"role": "tool", "tool_call_id": call_id, "content": output + "\nexit code: 1"}


OVER_BY_A_TOKEN = [
    {"role": "system", "content": "fix"},
    *_users("fix fix fix fix fix fix fix never"),
    _bash_calls("c0", "c1", "c2"),
    _failed("c0", "data " * 300),
    _failed("c1"),
    _failed("c2"),
    *_users(*["fix"] * 5),
    *_users(" ".join(["fix"] * 17 + ["PAY-12"] * 3 + ["2026-01-02"] * 4 + ["never"]), "data " * 300, "fix"),
    _bash_calls("c3"),
    *_users(*["fix"] * 7, "fix fix PAY-12 PAY-12 2026-01-02 never"),
    *_users(" ".join(["fix"] * 14 + ["PAY-12"] * 4 + ["2026-01-02"] * 2 + ["never"]), "fix"),
    {"role": "assistant", "content": "fix"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "fix"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    },
    _bash_calls("c4"),
    *_users("fix"),
]


def test_a_snapshot_bigger_than_its_room_makes_the_tail_narrower_not_the_context_over_target():
    check(OVER_BY_A_TOKEN, window=1500, force=False)
