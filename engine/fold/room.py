"""How a fold shares the room under its target (docs/design.md §6.2-3): what the snapshot is planned to
take, what the verbatim tail takes first (`keep_ratio`), and what the snapshot may use once the tail is
chosen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import snapshot as snap
from ..messages import Message
from ..tokens import TokenCounter

if TYPE_CHECKING:
    from .pipeline import FoldRequest

MIN_SNAPSHOT_BUDGET = 64  # tokens: below this no snapshot says anything useful
ACK_OVERHEAD = 3  # tokens litellm adds around the acknowledgement beyond its text

SNAPSHOT_SHARE = 0.75
"""Of the room under the target, what the snapshot is planned to take before the tail is chosen (§6.3)."""
SNAPSHOT_FLOOR = 0.5


def snapshot_budget(systems: Sequence[Message], request: FoldRequest) -> int:
    """What the snapshot may take: its share of the room under the target, within `snapshot_ratio`."""
    share = int(SNAPSHOT_SHARE * under_target(systems, request))
    return max(MIN_SNAPSHOT_BUDGET, min(request.policy.snapshot_cap(request.window), share))


TAIL_FIRST_FLOOR = 0.4
"""The least share of the room under the target the snapshot is planned with when the verbatim tail takes
its `keep_ratio` first: the state (rules, goal, current values) still fits, and recall at every send
(docs/design.md §14) brings back the details a smaller snapshot leaves out."""


MIN_STATE_TOKENS = 1_700
"""...and never under this many tokens: in a small window (8k) a snapshot of 40 % of the room lost the state
itself, and answers with it (bench/memory_bench.py on bench/chats at 8k: 0.83 of answers in the request
without this floor, 0.93 with it)."""


def planned_snapshot(systems: Sequence[Message], request: FoldRequest) -> int:
    """The snapshot's size as planned before the tail is chosen: what the verbatim tail's budget
    (`keep_ratio`) leaves under the target, within the snapshot's cap and not under `TAIL_FIRST_FLOOR` of
    the room. Recent turns keep their room (in a 32k window one exchange had stayed beside a 9.4k snapshot):
    what the snapshot does not use goes to them, and not the other way round."""
    under, budget = under_target(systems, request), snapshot_budget(systems, request)
    left = under - request.policy.keep_at(request.window) - ack_tokens(request.counter)
    floor = min(budget, max(MIN_STATE_TOKENS, int(TAIL_FIRST_FLOOR * under)))
    return max(floor, min(budget, left))


def under_target(systems: Sequence[Message], request: FoldRequest) -> int:
    """Tokens the snapshot and the tail may share: the target minus the reply reserve and system prompts."""
    systems_tokens = sum(request.counter.count_message(m) for m in systems)
    return request.policy.target_at(request.window) - request.reserved_output - systems_tokens


def snapshot_room(systems: Sequence[Message], request: FoldRequest, tail_tokens: int) -> int:
    """The snapshot's budget once the tail is chosen: what the tail left under the target (more than planned
    when whole turns made it short, up to the cap), not below `SNAPSHOT_FLOOR` of it while under the reset
    ratio (a long paste kept verbatim took all the room: the snapshot kept nothing, rules included)."""
    budget = snapshot_budget(systems, request)
    room = under_target(systems, request) - tail_tokens - ack_tokens(request.counter)
    below_reset = room + int(request.policy.reset_at(request.window)) - request.policy.target_at(request.window)
    floor = min(int(SNAPSHOT_FLOOR * budget), below_reset)
    most = max(budget, min(request.policy.snapshot_cap(request.window), room))
    return max(MIN_SNAPSHOT_BUDGET, min(most, max(room, floor)))


def ack_tokens(counter: TokenCounter) -> int:
    return counter.count_message(Message.assistant(snap.ACKNOWLEDGEMENT)) + ACK_OVERHEAD
