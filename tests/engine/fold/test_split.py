from foldchat.engine.fold.split import safe_split
from foldchat.engine.messages import Message


def conv(roles):
    out = []
    for n, role in enumerate(roles):
        out.append(Message.tool(f"c{n}", "r") if role == "tool" else Message(role=role, content=str(n)))
    return out


def test_phase1_prefers_the_earliest_user_turn_that_fits():
    msgs = conv(["user", "assistant", "user", "assistant", "user", "assistant", "user"])
    split = safe_split(msgs, [10] * 7, budget=35, keep_from=6)
    assert (split.index, split.phase, split.tail_tokens) == (4, 1, 30)


def test_phase2_uses_a_pair_safe_boundary_when_no_user_turn_fits():
    msgs = conv(["user", "assistant", "tool", "assistant", "user"])
    # a caller that must keep from a non-user message (index 3) gets a pair-safe boundary
    split = safe_split(msgs, [10, 10, 10, 10, 5], budget=15, keep_from=3)
    assert (split.index, split.phase) == (3, 2)


def test_phase3_keeps_only_the_current_turn_when_nothing_fits():
    msgs = conv(["user", "assistant", "user"])
    split = safe_split(msgs, [10, 10, 100], budget=50, keep_from=2)
    assert (split.index, split.phase) == (2, 3)


def test_phase4_breaks_the_fewest_pairs_when_no_boundary_is_safe():
    msgs = conv(["user", "tool", "tool", "tool"])
    split = safe_split(msgs, [1, 1, 1, 1], budget=2, keep_from=3)
    assert split.phase == 4 and split.index == 3


def test_nothing_to_fold_when_the_current_turn_is_everything():
    assert safe_split(conv(["user", "assistant"]), [1, 1], budget=10, keep_from=0) is None
