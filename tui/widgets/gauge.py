"""The context gauge: tokens in context against the window, always visible, live while typing and
streaming, with the fold trigger marked and the reserved output shown."""

from __future__ import annotations

from dataclasses import dataclass, replace

from foldchat.engine import turns_words
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


@dataclass(frozen=True)
class GaugeState:
    tokens: int = 0
    window: int = 0
    reserved: int = 0
    trigger: int = 0
    typing: int = 0
    streaming: int = 0
    cost: float = 0.0
    cached_share: float = 0.0
    """Of the replies' input tokens, the share the providers read from their prompt cache."""
    model: str = ""
    turns_left: int | None = None
    """The engine's `Usage.turns_left` for the stored context: typing or a reply streaming does not make it
    flicker (counted with them, it jumped at every key). None before the first reply."""
    note: str = ""
    fold_paused: bool = False
    """Automatic folds failed twice in a row and wait for /resummarize (docs/design.md §5)."""
    recalled: int = 0
    """What recall added to the latest request (passages of folded messages), counted in what is shown."""
    at_trigger: str = "folds"
    """What a send past the trigger does (`AutoFold.at_trigger`): folds, asks, declined, off, or what holds
    the fold back (cooldown, not re-armed, too few messages)."""

    @property
    def used(self) -> int:
        return self.tokens + self.typing + self.streaming + self.reserved  # recall never triggers a fold

    @property
    def level(self) -> str:
        if not self.window:
            return "-low"
        if self.used >= self.trigger:
            return "-over"
        if self.used >= 0.85 * self.trigger:
            return "-near"
        return "-low"

    @property
    def shown(self) -> int:
        """The number the gauge shows and its percentage is of: the context, with what is typed or streaming
        (the reply's reserve is shown apart; "fold at" is where the context alone triggers a fold)."""
        return self.tokens + self.recalled + self.typing + self.streaming

    @property
    def fold_at(self) -> int:
        return max(0, self.trigger - self.reserved)


TYPING_ROOM = 9_999  # tokens the gauge keeps room for in its line, typed or not (a long paste may go short)


class ContextGauge(Widget):
    DEFAULT_CSS = """
    ContextGauge { height: 1; padding: 0 1; background: $panel; color: $text; }
    ContextGauge.-near { color: $warning; }
    ContextGauge.-over { color: $error; }
    ContextGauge.-paused { color: $warning; }
    """

    state: reactive[GaugeState] = reactive(GaugeState, layout=False)

    def watch_state(self, state: GaugeState) -> None:
        for level in ("-low", "-near", "-over"):
            self.set_class(level == state.level, level)
        self.set_class(state.fold_paused, "-paused")

    def render(self) -> Text:
        s = self.state
        if not s.window:
            return Text(s.note or "context: counting…", style="dim")
        room = self.size.width
        # the form is chosen as if something were typed: the first key must not make the line jump to the
        # short form (it did at 120 columns); what is typed then fills the room kept for it
        probe = replace(s, typing=max(s.typing, TYPING_ROOM))
        wide, narrow = max(10, min(40, room // 4)), max(8, min(16, room // 8))
        bar = min(wide, room - (self._line(probe, 10, short=False).cell_len - 10))  # the bar gives the room
        if bar >= 10:
            return self._line(s, bar, short=False)
        if self._line(probe, narrow, short=True).cell_len <= room:  # 80 columns: short numbers and words; the
            return self._line(s, narrow, short=True)  # reserve is the bar's ▒ cells
        return self._line(s, 8, short=True, model=False)  # a long model name: the status line names it anyway

    def _line(self, s: GaugeState, width: int, short: bool, model: bool = True) -> Text:
        n = _short if short else _full
        percent = 100 * s.shown / s.window
        name = f"{s.model} " if model else ""
        typing = (f" +{n(s.typing)}" + ("" if short else " typing")) if s.typing else ""
        recalled = (f" +{n(s.recalled)}" + ("r" if short else " recalled")) if s.recalled else ""
        context = n(s.tokens + s.streaming)
        if short:
            numbers = f" {context}{recalled}{typing}/{n(s.window)} {percent:.0f}% · fold {n(s.fold_at)}"
        else:
            numbers = (f" {context}{recalled}{typing} / {n(s.window)} ({percent:.0f}%) · fold at "
                       f"{n(s.fold_at)} · reserve {n(s.reserved)}")  # fmt: skip
        text = Text.assemble((name, "bold"), _bar(s, width), numbers)
        left = s.turns_left
        if s.fold_paused:  # before the turns left, which it makes meaningless: seen in a narrow terminal too
            paused = (
                "auto-fold paused: /resummarize" if short else "auto-fold paused after 2 failures: /resummarize retries"
            )
            text.append(f" · {paused}", style="bold")
        elif s.typing + s.reserved > s.window:  # no fold makes room for what is typed: say it before Enter
            text.append(" · too big to send" if short else " · what is typed is too big to send", style="bold")
        elif left is not None:
            turns = turns_words(left, short)
            text.append(f" · {turns}" if s.used < s.trigger else f" · {_AT_TRIGGER[s.at_trigger][short]}")
        text.append(f" · ${s.cost:.4f}")
        if s.cached_share >= 0.01 and not short:  # what caching did for what is paid (docs/design.md §15)
            text.append(f" · {s.cached_share:.0%} of input cached")
        if s.note:
            text.append(f" · {s.note}", style="italic")
        return text


_AT_TRIGGER = {  # (long, short) by what a send past the trigger does
    "folds": ("folds on next send", "folds next send"),
    "asks": ("asks to fold on next send", "asks to fold"),
    "declined": ("fold declined until the context grows", "fold declined"),
    "off": ("over the fold trigger, auto-fold off", "auto-fold off"),
    # the policy holds the fold back (`Usage.held`): a send past the trigger does not fold
    "cooldown": ("over the trigger, folds after the cooldown", "fold after cooldown"),
    "not re-armed": ("auto-fold waits: the last fold left too much (/resummarize)", "fold waits: /resummarize"),
    "too few messages": ("over the trigger, too few messages to fold", "too few to fold"),
}


def _full(tokens: int) -> str:
    return f"{tokens:,}"


def _short(tokens: int) -> str:
    if tokens < 1000:
        return str(tokens)
    if tokens < 10_000:
        return f"{tokens / 1000:.1f}k"
    if tokens < 1_000_000:
        return f"{tokens // 1000}k"
    return f"{tokens / 1_000_000:.1f}M"


def _bar(s: GaugeState, width: int) -> Text:
    """The bar in at most six runs (used, reserve, free, split by the trigger mark): a span per cell
    made the gauge the costliest widget to repaint."""
    used_cells = min(width, round(width * (s.tokens + s.typing + s.streaming) / s.window))
    reserve_cells = min(width - used_cells, round(width * s.reserved / s.window))
    trigger_cell = min(width - 1, round(width * s.trigger / s.window))
    cells = "█" * used_cells + "▒" * reserve_cells + "·" * (width - used_cells - reserve_cells)
    bar = Text()
    for start, end in ((0, trigger_cell), (trigger_cell + 1, width)):
        for char, style in (("█", ""), ("▒", "dim"), ("·", "dim")):
            run = cells[start:end].count(char)
            if run:
                bar.append(char * run, style=style)
        if start == 0:
            bar.append("│", style="bold")
    return bar
