"""The context gauge: tokens in context against the window, always visible, live while typing and
streaming, with the fold trigger marked and the reserved output shown."""

from __future__ import annotations

from dataclasses import dataclass

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
    model: str = ""
    per_turn: int = 0
    note: str = ""
    fold_paused: bool = False
    """Automatic folds failed twice in a row and wait for /resummarize (DESIGN §5)."""

    @property
    def used(self) -> int:
        return self.tokens + self.typing + self.streaming + self.reserved

    @property
    def level(self) -> str:
        if not self.window:
            return "-low"
        if self.used >= self.trigger:
            return "-over"
        if self.used >= 0.85 * self.trigger:
            return "-near"
        return "-low"

    def turns_left(self) -> int | None:
        if not self.window or self.per_turn <= 0:
            return None
        return max(0, (self.trigger - self.used) // self.per_turn)


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
        width = max(10, min(40, self.size.width // 4))
        used_cells = min(width, round(width * (s.tokens + s.typing + s.streaming) / s.window))
        reserve_cells = min(width - used_cells, round(width * s.reserved / s.window))
        trigger_cell = min(width - 1, round(width * s.trigger / s.window))
        bar = Text()
        for cell in range(width):
            if cell == trigger_cell:
                bar.append("│", style="bold")
            elif cell < used_cells:
                bar.append("█")
            elif cell < used_cells + reserve_cells:
                bar.append("▒", style="dim")
            else:
                bar.append("·", style="dim")
        percent = 100 * s.used / s.window
        text = Text.assemble(
            (f"{s.model} ", "bold"),
            bar,
            f" {s.tokens + s.streaming:,}",
            (f" +{s.typing:,} typing" if s.typing else ""),
            f" / {s.window:,} ({percent:.0f}%) · fold at {s.trigger:,} · reserve {s.reserved:,}",
        )
        left = s.turns_left()
        if s.fold_paused:  # before the turns left, which it makes meaningless: seen in a narrow terminal too
            text.append(" · auto-fold paused after 2 failures: /resummarize retries", style="bold")
        elif left is not None:
            text.append(f" · ≈ {left} turns left" if s.used < s.trigger else " · folds on next send")
        text.append(f" · ${s.cost:.4f}")
        if s.note:
            text.append(f" · {s.note}", style="italic")
        return text
