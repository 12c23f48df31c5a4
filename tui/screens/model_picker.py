"""Pick a model: known names with window and price, and whether the conversation fits there."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ..literal import literal


@dataclass(frozen=True)
class ModelChoice:
    name: str
    window: int
    input_per_million: float
    output_per_million: float
    fit: str
    note: str = ""

    def label(self) -> str:
        price = (
            "free" if not (self.input_per_million or self.output_per_million)
            else f"${self.input_per_million:.2f}/${self.output_per_million:.2f} per 1M"
        )  # fmt: skip
        line = f"{self.name:<28} {self.window:>9,} tokens  {price:<22} {self.fit}"
        return f"{line} · {self.note}" if self.note else line


class ModelPicker(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > Vertical { width: 90; max-width: 95%; height: auto; max-height: 80%;
                             border: thick $primary; background: $surface; padding: 0 1; }
    ModelPicker OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, choices: list[ModelChoice], current: str) -> None:
        super().__init__()
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(f"Switch model (now: {self.current}) · window · price · fit"))
            yield OptionList(*[Option(literal(c.label()), id=c.name) for c in self.choices], id="models")
            yield Input(placeholder="or type any litellm model, e.g. anthropic/claude-sonnet-4-5", id="custom")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())
