"""When to fold (docs/design.md §5): trigger, target, hysteresis, cooldown and the emergency rule.

The policy is a pure function of the current usage and of what happened since the last fold, so the
CLI, the TUI and tests all decide the same way. `FoldPolicy`'s field defaults are the only place the
default knobs are written down: the config's `[fold]` section and `foldchat compress` read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Trigger(StrEnum):
    """Why a fold happened (stored with the fold record)."""

    AUTO = "auto"
    MANUAL = "manual"
    EMERGENCY = "emergency"
    SWITCH = "switch"


@dataclass(frozen=True)
class FoldPolicy:
    """Knobs of the fold policy; every ratio is a fraction of the model's context window."""

    trigger_ratio: float = 0.80
    """Fold when context + reserved output reaches this share of the window."""
    trigger_tokens: int | None = None
    """Also fold when context + reserved output reaches this many tokens (whichever comes first)."""
    target_ratio: float = 0.50
    """After a fold, context + reserved output is at or below this share of the window."""
    reset_ratio: float = 0.70
    """After a fold, no new automatic fold until usage has dropped below this share..."""
    cooldown_messages: int = 4
    """...and this many new messages arrived (unless usage reaches the whole window)."""
    min_messages: int = 6
    """Never fold automatically a conversation with fewer non-system messages than this."""
    keep_ratio: float = 0.30
    """Budget of the verbatim tail (at least the current turn)."""
    snapshot_ratio: float = 0.30
    """The snapshot never takes more than this share of the window (it takes less when the room under the
    target is smaller: the fold plans 75 % of that room for it and gives what it leaves to recent turns)."""
    prune_keep_ratio: float = 0.10
    """Before summarizing, tool outputs beyond the newest this share of the window become one-line stubs."""
    message_ratio: float = 0.50
    """A single message above this share of the fold target is condensed before splitting."""
    reserved_output: int = 1024
    """Tokens reserved for the reply, counted in usage (see `reply_reserve` for the caps)."""

    def __post_init__(self) -> None:
        for name in (
            "trigger_ratio",
            "target_ratio",
            "reset_ratio",
            "keep_ratio",
            "snapshot_ratio",
            "prune_keep_ratio",
        ):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        if self.reserved_output < 0:
            raise ValueError(f"reserved_output must not be negative, got {self.reserved_output}")
        if self.target_ratio >= self.trigger_ratio:
            raise ValueError(f"target_ratio ({self.target_ratio}) must be below trigger_ratio ({self.trigger_ratio})")

    def trigger_at(self, window: int) -> int:
        """Usage (context + reserved output) at which an automatic fold starts."""
        at = int(self.trigger_ratio * window)
        if self.trigger_tokens is not None:
            at = min(at, self.trigger_tokens)
        return at

    def target_at(self, window: int) -> int:
        target = int(self.target_ratio * window)
        return min(target, self.trigger_at(window) - 1)

    def message_threshold(self, window: int) -> int:
        return max(1, int(self.message_ratio * self.target_at(window)))

    def reply_reserve(self, window: int, max_output_tokens: int | None = None) -> int:
        """Tokens kept free for the reply: `reserved_output`, but never more than the model may write
        nor a quarter of its window. The one rule for the app, `foldchat ask` and `foldchat compress`."""
        reserve = self.reserved_output
        if max_output_tokens:
            reserve = min(reserve, max_output_tokens)
        return min(reserve, window // 4)


@dataclass(frozen=True)
class FoldHistory:
    """What the policy needs to know about the last fold of this conversation."""

    folded: bool = False
    messages_since: int = 0
    dropped_below_reset: bool = True


@dataclass(frozen=True)
class Decision:
    fold: bool
    reason: str
    trigger: Trigger | None = None


def decide(
    policy: FoldPolicy,
    *,
    usage: int,
    window: int,
    message_count: int,
    history: FoldHistory | None = None,
) -> Decision:
    """Should the context (usage = context tokens + reserved output) be folded now?"""
    history = history or FoldHistory()
    trigger_at = policy.trigger_at(window)
    if usage >= window and message_count > 0:
        return Decision(True, f"usage {usage:,} reached the window {window:,} (emergency)", Trigger.EMERGENCY)
    if usage < trigger_at:
        return Decision(False, f"usage {usage:,} is below the trigger {trigger_at:,}")
    if message_count < policy.min_messages:
        return Decision(False, f"only {message_count} messages (min_messages is {policy.min_messages}); not folding")
    if history.folded:
        if not history.dropped_below_reset:
            return Decision(False, "usage has not dropped below reset_ratio since the last fold")
        if history.messages_since < policy.cooldown_messages:
            return Decision(
                False,
                f"cooldown: {history.messages_since} of {policy.cooldown_messages} messages since the last fold",
            )
    return Decision(True, f"usage {usage:,} reached the trigger {trigger_at:,}", Trigger.AUTO)
