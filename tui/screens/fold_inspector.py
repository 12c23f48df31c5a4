"""The fold inspector: the snapshot section by section, what it covers, and Undo / Edit / Re-fold.

Its actions are on Ctrl keys, not letters: people type on while it is open (it comes up from `/folds`, or
Enter on a fold marker), and a word was a string of actions ("every": Edit, then the rest in the snapshot).
A character typed outside its own fields goes on in the composer behind it, and its border says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from foldchat.engine import edit_refusal, visible
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Markdown, TextArea

from ..literal import literal, md_literal
from ..widgets.composer import Composer


@dataclass(frozen=True)
class FoldView:
    """Everything the inspector shows, prepared by the chat screen."""

    fold_id: int
    sections: list[tuple[str, list[str]]]
    snapshot_text: str
    edited: bool
    covers: tuple[int, int]
    covered_count: int
    tokens_before: int
    tokens_after: int
    summarizer: str
    trigger: str
    chain: list[str]
    covered: list[str] = field(default_factory=list)
    """One line per covered message (role: first words), oldest first."""
    rules: list[str] = field(default_factory=list)
    """The user's standing rules the fold carries, numbered for `x` (drop one)."""
    number: int = 0
    """Which fold of this conversation it is (1 for its first); `fold_id` is the store's id."""


@dataclass(frozen=True)
class InspectorAction:
    action: Literal["undo", "edit", "refold", "preview", "drop_rule", "open"]
    fold_id: int
    text: str = ""


def _lines(lines: Iterable[str]) -> str:
    """One paragraph, a line each (hard breaks): a Markdown list is a widget per item, and a fold's 300
    items took 2.5 s to mount with the app frozen. Callers start lines with "•" or an escaped "1\\.": no list."""
    return "  \n".join(lines)


def sections_markdown(sections: list[tuple[str, list[str]]], rules: list[str], drop_hint: bool = True) -> list[str]:
    """A snapshot's sections, its standing rules first and numbered (listed once, not again under constraints)."""
    lines = []
    if rules:
        # the heading stays short (a heading does not wrap: at 80 columns it lost "Ctrl+D drops one"); what
        # the rules are and the key come in the paragraph under it, which wraps
        hint = "; Ctrl+D drops one" if drop_hint else ""
        lines += ["### your standing rules", f"Kept word for word in every fold{hint}.", ""]
        lines += [_lines(f"{n}\\. {md_literal(rule)}" for n, rule in enumerate(rules, start=1)), ""]
    for name, items in sections:
        title = name.replace("_", " ")
        if name == "constraints_and_preferences" and rules:  # the rules are listed above, numbered
            items, title = [i for i in items if i not in rules], f"other {title}"
        if not items:
            continue
        lines.append(f"### {title}")
        lines += [_lines(f"• {md_literal(item)}" for item in items), ""]
    return lines


def snapshot_markdown(view: FoldView) -> str:
    lines = sections_markdown(view.sections, view.rules)
    if view.covered:
        lines.append(f"### the {view.covered_count} messages it covers (still in the transcript)")
        lines.append(_lines(f"• {md_literal(line)}" for line in view.covered))
    return "\n".join(lines) or "_(empty snapshot)_"


class FoldInspector(ModalScreen[InspectorAction | None]):
    DEFAULT_CSS = """
    FoldInspector { align: center middle; }
    FoldInspector > Vertical { width: 90%; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    FoldInspector #facts { color: $text-muted; height: auto; width: 100%; }
    FoldInspector #body { height: 1fr; }
    FoldInspector #editor { height: 1fr; display: none; }
    FoldInspector.-editing #editor { display: block; }
    FoldInspector.-editing #body { display: none; }
    FoldInspector #focus { display: none; }
    FoldInspector.-refolding #focus { display: block; }
    FoldInspector #drop { display: none; }
    FoldInspector.-dropping #drop { display: block; }
    FoldInspector #open { display: none; }
    FoldInspector.-opening #open { display: block; }
    FoldInspector Horizontal { height: auto; }
    FoldInspector Button { margin: 0 1 0 0; min-width: 6; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+u", "undo", "Undo fold"),
        Binding("ctrl+e", "edit", "Edit snapshot"),
        Binding("ctrl+r", "refold", "Re-fold"),
        Binding("ctrl+s", "save", "Save edit", priority=True),
        Binding("ctrl+t", "preview", "Preview a re-fold"),  # also from the focus field (Input binds no Ctrl+T)
        Binding("ctrl+d", "drop_rule", "Drop a rule"),
        Binding("ctrl+o", "open_message", "Open #"),
    ]
    TYPING_HINT = "typing goes on in the composer · Esc closes"
    EDITING_HINT = "typing edits the snapshot · Ctrl+S saves · Esc leaves the editor"

    def __init__(self, view: FoldView, forward: Composer | None = None) -> None:
        super().__init__()
        self.view = view
        self.forward = forward
        """Where a character typed outside the inspector's own fields goes: the chat's composer."""

    def compose(self) -> ComposeResult:
        v = self.view
        with Vertical(id="inspector") as box:
            if self.forward is not None:
                box.border_subtitle = self.TYPING_HINT
            yield Label(literal(f"Fold {v.number or v.fold_id}{' (edited)' if v.edited else ''}"), classes="title")
            yield Label(
                literal(
                    f"covers messages {v.covers[0]}..{v.covers[1]} ({v.covered_count} messages) · "
                    f"{v.tokens_before:,} → {v.tokens_after:,} tokens · {v.summarizer} · trigger {v.trigger}\n"
                    f"chain: {' → '.join(v.chain)}"
                ),
                id="facts",
            )
            with VerticalScroll(id="body"):
                yield Markdown(visible(snapshot_markdown(v)))
            yield TextArea(visible(v.snapshot_text), id="editor", soft_wrap=True)
            yield Input(placeholder="focus for the new fold (optional), Enter to fold", id="focus")
            yield Input(placeholder="number of the rule to drop (rules are numbered above), Enter", id="drop")
            yield Input(
                placeholder="number of a message (#12 in the snapshot), Enter opens it word for word", id="open"
            )
            with Horizontal():  # Tab from the editor reaches Save first; Undo (destructive) comes last
                yield Button("Save", id="save", variant="success", disabled=True)  # Ctrl+S, in the footer
                yield Button("Edit", id="edit")
                yield Button("Re-fold", id="refold")
                yield Button("Preview", id="preview")
                yield Button("Close", id="close")
                yield Button("Undo…", id="undo", variant="warning")
        yield Footer()  # this screen's keys, not the chat's underneath

    async def on_key(self, event: events.Key) -> None:
        """A character typed outside its fields (and not Enter or Space on a button) is the composer's."""
        if self.forward is None or not event.is_printable or not event.character:
            return
        if isinstance(self.focused, Input | TextArea) or (isinstance(self.focused, Button) and event.key == "space"):
            return
        event.stop()
        event.prevent_default()
        await self.forward.take_key(event)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        handlers = {"undo": self.action_undo, "edit": self.action_edit, "refold": self.action_refold,
                    "preview": self.action_preview,
                    "save": self.save, "close": self.action_close}  # fmt: skip
        handlers[event.button.id or "close"]()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_back(self) -> None:
        """Esc backs out one level: out of the editor or the focus field first, then closes."""
        if self.has_class("-editing") or self.has_class("-refolding") or self.has_class("-opening"):
            self.remove_class("-editing", "-refolding", "-opening")
            self._say_where_typing_goes()
            self.query_one("#save", Button).disabled = True
            self.query_one("#body").focus()
            return
        self.action_close()

    def action_undo(self) -> None:
        """Undoing a fold is asked for first (the dialog's default answer is Cancel)."""
        from .confirm import ConfirmDialog

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.dismiss(InspectorAction("undo", self.view.fold_id))

        question = f"Undo fold {self.view.fold_id}? The context goes back to the original messages."
        self.app.push_screen(ConfirmDialog(question, "Undo fold"), answered)

    def action_save(self) -> None:
        if self.has_class("-editing"):
            self.save()

    def action_edit(self) -> None:
        self.add_class("-editing")
        self._say_where_typing_goes()
        self.query_one("#save", Button).disabled = False
        self.query_one("#editor", TextArea).focus()

    def _say_where_typing_goes(self) -> None:
        """The frame's hint: while the snapshot is edited typing is the editor's, not the composer's."""
        if self.forward is not None:
            hint = self.EDITING_HINT if self.has_class("-editing") else self.TYPING_HINT
            self.query_one("#inspector", Vertical).border_subtitle = hint

    def save(self) -> None:
        """Saved only if every line is in a section: any other is refused by name and the editor stays open."""
        text = self.query_one("#editor", TextArea).text
        refusal = edit_refusal(text, self.view.snapshot_text)
        if refusal is not None:
            self.notify(refusal, severity="error", markup=False)  # the line is the user's, not markup
            return
        self.dismiss(InspectorAction("edit", self.view.fold_id, text))

    def action_preview(self) -> None:
        """What a re-fold would do, shown before anything is applied (with the focus typed, if any)."""
        focus = self.query_one("#focus", Input).value.strip()
        self.dismiss(InspectorAction("preview", self.view.fold_id, focus))

    def action_refold(self) -> None:
        self.add_class("-refolding")
        self.query_one("#focus", Input).focus()

    def action_drop_rule(self) -> None:
        self.add_class("-dropping")
        self.query_one("#drop", Input).focus()

    def action_open_message(self) -> None:
        """Any message the fold covers (or recall brought back), word for word, by its number."""
        self.add_class("-opening")
        self.query_one("#open", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        actions: dict[str | None, Literal["drop_rule", "refold", "open"]] = {"drop": "drop_rule", "open": "open"}
        self.dismiss(InspectorAction(actions.get(event.input.id, "refold"), self.view.fold_id, event.value.strip()))
