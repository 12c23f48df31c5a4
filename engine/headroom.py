"""How much of a window the conversation takes, and how many more turns fit before a fold (docs/design.md
§4, §5). One arithmetic and one wording for every face that states it: the gauge, the model picker's
rows, the notice of a model switch, /context.

- **Tokens**: the context as it will be sent (`Usage.tokens`), the reply's reserve apart. The reserve is in
  the mark instead: the context alone folds at `fold_at` (the trigger less the reserve), so "fits" means
  `tokens + reserve < trigger`, the policy's own test (`policy.decide`).
- **Turns left**: how many more turns like the recent ones are sent before one is folded first. A turn's
  fold check counts the context with its prompt and the reply's reserve (the reply is not written yet),
  so turn k goes unfolded when `tokens + (k - 1) * exchange + prompt + reserve < trigger`. The reserve is
  included exactly as the policy includes it, and 0 is said only when the next typical prompt itself
  would fold.
- **A typical turn** is the median of the last `RECENT_EXCHANGES` answered exchanges of the stored
  transcript (a prompt and what answered it, tool rounds included, each message as it is sent): one long
  paste or one short "thanks" does not move it, a fold does not change it (it changes what is sent, not
  what was said), and the same stored conversation gives the same number after a restart. A prompt still
  waiting for its reply is not a turn yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: the gauge's module reads this one on the UI thread
    from .messages import Message

RECENT_EXCHANGES = 7
"""Exchanges the typical turn is the median of: three odd ones among them do not move it."""


@dataclass(frozen=True)
class TurnSize:
    """A typical recent turn: its prompt, and the whole exchange (the prompt and what answered it)."""

    prompt: int = 0
    exchange: int = 0
    """0 before the first answered prompt: nothing says yet what a turn takes."""


@dataclass(frozen=True)
class Usage:
    """What the conversation takes of a model's window: context tokens, the reply's reserve, the fold
    trigger and target, and the typical turn the turns left are counted in."""

    tokens: int
    window: int
    reserved: int
    trigger: int
    target: int
    turn: TurnSize = field(default_factory=TurnSize)
    recalled: int = 0
    """What automatic recall added to the request for the latest prompt (recall_at_send.py); not part of
    `tokens` (it is found again at every send, and never triggers a fold), shown beside them."""
    held: str = ""
    """Past the trigger, what keeps the next send from folding automatically (`policy.Decision.held`:
    the cooldown after a fold, a fold that left the context above `reset_ratio`, too few messages); ""
    when it would fold, or the context is under the trigger."""

    @property
    def used(self) -> int:
        """The context with the reply's reserve: what the policy compares with the trigger."""
        return self.tokens + self.reserved

    @property
    def per_turn(self) -> int:
        """What a typical recent exchange adds to the context; 0 before the first answered prompt."""
        return self.turn.exchange

    @property
    def fold_at(self) -> int:
        """The context's size at which it folds (the trigger less the reply's reserve): the gauge's mark."""
        return max(0, self.trigger - self.reserved)

    @property
    def fits(self) -> bool:
        """Under the fold trigger, reserve included: no fold is due for what is stored now."""
        return self.used < self.trigger

    @property
    def turns_left(self) -> int | None:
        """Turns like the recent ones sent before a fold (`turns_left`); None before the first reply."""
        return turns_left(self.tokens, self.reserved, self.trigger, self.turn)

    def fit_words(self) -> str:
        """Whether the conversation fits this window, in the words the picker and the switch notice use:
        "fits (3,190 · ≈ 12 turns left)", "fits (3,190)" before the first reply, "will fold first (13,000)".
        The number is the gauge's: the context, without the reply's reserve."""
        if not self.fits:
            return f"will fold first ({self.tokens:,})"
        left = self.turns_left
        return f"fits ({self.tokens:,})" if left is None else f"fits ({self.tokens:,} · {turns_words(left)})"


def turns_left(tokens: int, reserved: int, trigger: int, turn: TurnSize) -> int | None:
    """How many more turns of `turn`'s size are sent without a fold first, from a context of `tokens`: turn
    k goes unfolded while `tokens + (k - 1) * exchange + prompt + reserved < trigger` (`policy.decide`
    folds at `>=`, checking the context with the new prompt and the reply's reserve). None when no turn
    has been answered yet."""
    if turn.exchange <= 0:
        return None
    room = trigger - reserved - tokens - turn.prompt
    return 0 if room <= 0 else 1 + (room - 1) // turn.exchange


def turns_words(turns: int, short: bool = False) -> str:
    """ "≈ 12 turns left", "≈ 1 turn left" (short: "≈12 turns"): how every face says it. Past 20 the number
    is said to the nearest 10, past 100 to the nearest 100: a typical turn of 30 or 35 tokens made a 16k
    window's 492 turns 405, then 436, and the digits moved every turn while nothing the user could act on did."""
    shown = _rounded(turns)
    unit = "turn" if shown == 1 else "turns"
    return f"≈{shown} {unit}" if short else f"≈ {shown} {unit} left"


def _rounded(turns: int) -> int:
    for step, above in ((100, 100), (10, 20)):
        if turns >= above:
            return max(above, round(turns / step) * step)
    return turns


def turn_size(messages: Sequence[Message], count: Callable[[Message], int], recent: int = RECENT_EXCHANGES) -> TurnSize:
    """The typical turn of `messages` (the sendable transcript, as sent, in order): the median prompt and
    the median exchange of the last `recent` answered exchanges, each counted with `count`. System
    messages are not part of a turn; prompts in a row (one went unanswered) count as one exchange's; a
    prompt with no answer after it yet is left out."""
    prompts: list[int] = []
    exchanges: list[int] = []
    prompt = answer = 0
    for message in reversed(messages):  # from the newest: only the tail is counted
        if message.role == "system" or message.is_snapshot:
            continue
        tokens = count(message)
        if message.role == "user":
            prompt += tokens
            continue
        if prompt:  # an answer older than the prompt just read: that exchange is whole
            if answer:
                prompts.append(prompt)
                exchanges.append(prompt + answer)
                if len(exchanges) == recent:
                    break
            prompt = answer = 0
        answer += tokens
    else:
        if prompt and answer:
            prompts.append(prompt)
            exchanges.append(prompt + answer)
    if not exchanges:
        return TurnSize()
    return TurnSize(_median(prompts), _median(exchanges))


def _median(values: list[int]) -> int:
    """The middle value; of an even count, the mean of the middle two rounded up."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return -(-(ordered[middle - 1] + ordered[middle]) // 2)
