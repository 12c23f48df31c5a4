"""Pick a model: known names with window and price, and whether the conversation fits there.

Typing filters the list (or names any litellm model); a model whose API key is not set says so, and
picking it asks again before switching. The list is read in a worker: the picker opens at once and
says it is loading (resolving every offered model can take a second with litellm cold).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events, getters, work
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
    missing_key: str | None = None
    """The environment variable the model needs and that is not set: replies would fail."""

    def label(self) -> str:
        price = (
            "free" if not (self.input_per_million or self.output_per_million)
            else f"${self.input_per_million:.2f}/${self.output_per_million:.2f} per 1M"
        )  # fmt: skip
        line = f"{self.name:<28} {self.window:>9,}  {price:<20} {self.fit}"  # the fit: Usage.fit_words
        notes = [n for n in (self.note, f"needs {self.missing_key}" if self.missing_key else "") if n]
        return f"{line} · {' · '.join(notes)}" if notes else line


Choices = list[ModelChoice] | Callable[[], list[ModelChoice]]


class ModelPicker(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > Vertical { width: 112; max-width: 95%; height: auto; max-height: 80%;
                             border: thick $primary; background: $surface; padding: 0 1; }
    ModelPicker OptionList { height: auto; max-height: 20; }
    ModelPicker #warning { color: $warning; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    models = getters.query_one(OptionList)
    typed = getters.query_one(Input)
    """The filter, or a model's name to switch to."""
    warning = getters.query_one("#warning", Label)

    def __init__(self, choices: Choices, current: str) -> None:
        super().__init__()
        self.load = choices if callable(choices) else None
        self.choices: list[ModelChoice] = [] if callable(choices) else choices
        self.current = current
        self.warned: str | None = None  # the model whose missing key was just pointed out

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(f"Switch model (now: {self.current}) · window · price · fit"))
            yield Input(placeholder="filter, or any litellm model (e.g. openai/gpt-4o)", id="custom")
            yield OptionList(*self._options(self.choices), id="models")
            yield Label("", id="warning")

    def on_mount(self) -> None:
        if self.load is not None:
            self.models.add_option(Option("loading models…", id="", disabled=True))
            self.load_choices()

    @work(thread=True, exit_on_error=False)
    def load_choices(self) -> None:
        assert self.load is not None
        try:
            choices = self.load()
        except Exception as error:  # a model litellm chokes on must not leave "loading models…" forever
            self.app.call_from_thread(self._show_failed, f"{type(error).__name__}: {error}")
            return
        self.app.call_from_thread(self._show_loaded, choices)

    def _show_failed(self, problem: str) -> None:
        self.models.clear_options()
        self.warning.update(literal(f"could not list the models ({problem}); type a name"))

    def _show_loaded(self, choices: list[ModelChoice]) -> None:
        self.choices = choices
        self._filter(self.typed.value)

    def _options(self, choices: list[ModelChoice]) -> list[Option]:
        return [Option(literal(c.label()), id=c.name) for c in choices]

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        shown = [c for c in self.choices if all(w in c.name.lower() for w in words)]
        models = self.models
        models.clear_options()
        models.add_options(self._options(shown))
        models.highlighted = 0 if shown else None

    def on_input_changed(self, event: Input.Changed) -> None:
        self.warned = None
        self._filter(event.value)
        typed = event.value.strip()
        nothing = typed and self.choices and self.models.option_count == 0
        hint = f"no listed model matches; Enter switches to {typed!r} (any litellm model or alias)" if nothing else ""
        self.warning.update(literal(hint))

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and self.typed.has_focus:  # from the filter to the list
            self.models.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self._pick(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        highlighted = self.models.highlighted
        if highlighted is not None and (picked := self.models.get_option_at_index(highlighted).id):
            self._pick(picked)  # the best of the filtered list
        elif event.value.strip():
            self.dismiss(event.value.strip())  # any litellm model; the switch checks it

    def _pick(self, name: str) -> None:
        choice = next((c for c in self.choices if c.name == name), None)
        if choice is not None and choice.missing_key and self.warned != name:
            self.warned = name
            self.warning.update(
                literal(
                    f"{choice.missing_key} is not set: replies from {name} would fail. Export it and "
                    "restart Foldchat, or press Enter again to switch anyway."
                )
            )
            return
        self.dismiss(name)
