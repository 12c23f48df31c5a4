"""When to fold (docs/design.md §5): trigger, target, hysteresis, cooldown and the emergency rule.

The policy is a pure function of the current usage and of what happened since the last fold, so the
CLI, the TUI and tests all decide the same way. `FoldPolicy` is the config's `[fold]` section itself:
its fields, their defaults, limits and docstrings are written down here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar, Literal

from .errors import UsageError
from .limits import MAX_COUNT, MAX_TOKENS

MIN_AHEAD_TARGET_RATIO = 0.05  # below this a prepared fold would keep almost nothing verbatim: not worth it


class Trigger(StrEnum):
    """Why a fold happened (stored with the fold record)."""

    AUTO = "auto"
    MANUAL = "manual"
    EMERGENCY = "emergency"
    SWITCH = "switch"


def limited(default: Any, **limits: float) -> Any:
    """A field's default and the limits (pydantic's `gt`, `ge`, `le`) pydantic checks where a policy is
    validated: the config's `[fold]` section and `FoldPolicy.checked`."""
    return field(default=default, metadata=limits)


@dataclass(frozen=True)
class FoldPolicy:
    """The fold policy, and the config's `[fold]` section itself: every ratio is a share of the model's
    context window; the one place that reads the ratios, turning them into token counts for a window.

    A plain dataclass, so folding (`foldchat compress`, the app's pipeline) never loads pydantic: pydantic
    validates a policy that comes from outside (the config file, the environment, options a person typed,
    `checked`) against the types, limits and docstrings written here. Code that builds one is type-checked;
    the rule between two fields holds for every policy (`__post_init__`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {
        "extra": "forbid",
        "allow_inf_nan": False,
        "use_attribute_docstrings": True,
    }

    trigger_ratio: float = limited(0.80, gt=0, le=1)
    """Fold when context + reserve reaches this share."""
    trigger_tokens: int | None = limited(None, gt=0, le=MAX_TOKENS)
    """Also fold at this many tokens, if set (whichever comes first)."""
    target_ratio: float = limited(0.50, gt=0, le=1)
    """After a fold, usage is at or below this share."""
    reset_ratio: float = limited(0.70, gt=0, le=1)
    """Re-arm auto folds once usage drops below this."""
    cooldown_messages: int = limited(4, ge=0, le=MAX_COUNT)
    """...and this many messages arrived since the last fold."""
    min_messages: int = limited(6, ge=0, le=MAX_COUNT)
    """Never fold automatically below this many messages."""
    keep_ratio: float = limited(0.30, gt=0, le=1)
    """Budget of the verbatim recent turns."""
    snapshot_ratio: float = limited(0.30, gt=0, le=1)
    """Most the snapshot may take (less when the room under the target is smaller)."""
    prune_keep_ratio: float = limited(0.10, gt=0, le=1)
    """Older tool outputs beyond the newest this share become stubs."""
    message_ratio: float = limited(0.50, gt=0, le=1)
    """Condense single messages above this share of the target."""
    reserved_output: int = limited(1024, ge=0, le=MAX_TOKENS)
    """Tokens reserved for the reply, counted in usage."""
    auto: Literal["on", "ask", "off"] = "on"
    """Automatic folds: on; ask (at the trigger, fold now or not now); off (never, except that a send that
    would not fit the window asks first). /fold auto|ask|off changes it for the session."""
    recall: bool = True
    """Offer models that support tool calls a `recall` tool that gets folded or pruned originals back
    verbatim (never the local model)."""
    auto_recall: bool = True
    """Recall at every send: the passages of folded messages a new message is about go into its request,
    word for word (docs/design.md §13). /recall on|off changes it for the session."""
    recall_budget: float = limited(0.08, ge=0, le=0.5)
    """Most the recalled passages of one send may take, as a share of the window."""
    local_recall_budget: float = limited(0.012, ge=0, le=0.5)
    """The same for the embedded local model, which reads every token on two cores before its first word
    (~80 tokens a second: 173 recalled tokens cost 2.1 s; bench/recall_local_bench.py)."""

    def __post_init__(self) -> None:
        if self.target_ratio >= self.trigger_ratio:
            raise ValueError(f"target_ratio ({self.target_ratio}) must be below trigger_ratio ({self.trigger_ratio})")

    @classmethod
    def checked(cls, **values: Any) -> FoldPolicy:
        """The policy from values a person gave (`foldchat compress`'s options), validated: a problem is
        one line, not pydantic's report. Nothing given is the defaults, which need no check (nor pydantic)."""
        if not values:
            return cls()
        from pydantic import TypeAdapter, ValidationError

        from .validation import describe_validation_error

        try:
            return TypeAdapter(cls).validate_python(values)
        except ValidationError as error:
            raise UsageError(describe_validation_error(error, whole="fold policy")) from None

    def trigger_at(self, window: int) -> int:
        """Usage (context + reserved output) at which an automatic fold starts."""
        at = int(self.trigger_ratio * window)
        if self.trigger_tokens is not None:
            at = min(at, self.trigger_tokens)
        return at

    def target_at(self, window: int) -> int:
        target = int(self.target_ratio * window)
        return min(target, self.trigger_at(window) - 1)

    def reset_at(self, window: int) -> float:
        """Usage below which automatic folds re-arm after a fold (hysteresis)."""
        return self.reset_ratio * window

    def keep_at(self, window: int) -> int:
        """Most tokens the verbatim tail may take."""
        return int(self.keep_ratio * window)

    def snapshot_cap(self, window: int) -> int:
        """Most tokens the snapshot may take."""
        return int(self.snapshot_ratio * window)

    def recall_at(self, window: int, local: bool = False) -> int:
        """Most tokens recalled passages may add to one request."""
        return int((self.local_recall_budget if local else self.recall_budget) * window)

    def prune_keep_at(self, window: int) -> int:
        """Tokens of the newest tool outputs kept whole before summarizing."""
        return int(self.prune_keep_ratio * window)

    def message_threshold(self, window: int) -> int:
        return max(1, int(self.message_ratio * self.target_at(window)))

    def reply_reserve(self, window: int, max_output_tokens: int | None = None) -> int:
        """Tokens kept free for the reply: `reserved_output`, but never more than the model may write
        nor a quarter of its window. The one rule for the app, `foldchat ask` and `foldchat compress`."""
        reserve = self.reserved_output
        if max_output_tokens:
            reserve = min(reserve, max_output_tokens)
        return min(reserve, window // 4)

    def ahead(self, used: int, window: int, margin: int) -> FoldPolicy:
        """This policy for a fold computed now, at `used` tokens, meant to be applied at the trigger
        (fold/prefold.py): it folds now, and aims `trigger - used + margin` tokens below the target, the
        room the conversation will have taken by the time the trigger is reached (`margin`: one more turn)."""
        ahead = self.target_at(window) - max(0, self.trigger_at(window) - used) - margin
        target = max(int(MIN_AHEAD_TARGET_RATIO * window), ahead)
        # triggers just above its own target, so the policy folds now (whatever rounding the count had)
        return replace(self, trigger_tokens=target + 1, target_ratio=min(target / window, self.target_ratio))


@dataclass(frozen=True)
class FoldHistory:
    """What the policy needs to know about the last fold of this conversation."""

    folded: bool = False
    messages_since: int = 0
    dropped_below_reset: bool = True


@dataclass(frozen=True)
class Decision:
    """Whether to fold now, and why (a sentence for logs and reports)."""

    fold: bool
    reason: str
    trigger: Trigger | None = None
    held: str = ""
    """Past the trigger and still no automatic fold: what holds it, as the gauge says it ("cooldown",
    "not re-armed", "too few messages"); "" otherwise."""


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
        return Decision(
            False, f"only {message_count} messages (min_messages is {policy.min_messages}); not folding",
            held="too few messages",
        )  # fmt: skip
    if history.folded:
        if not history.dropped_below_reset:
            return Decision(False, "usage has not dropped below reset_ratio since the last fold", held="not re-armed")
        if history.messages_since < policy.cooldown_messages:
            return Decision(
                False,
                f"cooldown: {history.messages_since} of {policy.cooldown_messages} messages since the last fold",
                held="cooldown",
            )
    return Decision(True, f"usage {usage:,} reached the trigger {trigger_at:,}", Trigger.AUTO)
