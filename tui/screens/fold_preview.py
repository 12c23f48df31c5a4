"""`/resummarize --preview`: what a fold would do, before it is done. Enter applies it, Esc discards it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import SNAPSHOT_SECTIONS, is_standing_rule, visible
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Markdown

from ..literal import literal
from .fold_inspector import sections_markdown

if TYPE_CHECKING:
    from foldchat.engine import FoldPlan


def preview_summary(plan: FoldPlan) -> str:
    """One line: which messages, tokens before → after, who summarizes (or why nothing would fold)."""
    r = plan.report
    if not r.compressed:
        return f"Nothing would fold: {r.reason}"
    covers = f"messages {r.covers[0]}..{r.covers[1]}" if r.covers else "earlier snapshots"
    return (
        f"Would fold {r.folded_messages} messages ({covers}) · {r.tokens_before:,} → {r.tokens_after:,} tokens · "
        f"{r.summarizer} · {r.kept_messages} recent messages kept verbatim"
    )


def preview_markdown(plan: FoldPlan) -> str:
    snapshot = plan.snapshot
    if snapshot is None:
        return "_(no snapshot: only tool outputs would be pruned)_"
    sections = []
    for name in SNAPSHOT_SECTIONS:
        value = getattr(snapshot, name)
        sections.append((name, [value] if isinstance(value, str) and value else list(value or [])))
    rules = [r for r in snapshot.constraints_and_preferences if is_standing_rule(r)]
    # as the inspector shows a fold: one paragraph per section (a widget per item took seconds to open)
    return "\n".join(sections_markdown(sections, rules, drop_hint=False)) or "_(empty snapshot)_"


class FoldPreview(ModalScreen[bool]):
    """Dismissed with True (Enter: apply this exact result) or False (Esc: discard it)."""

    DEFAULT_CSS = """
    FoldPreview { align: center middle; }
    FoldPreview > Vertical { width: 90%; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    FoldPreview #summary { color: $text-muted; height: auto; width: 100%; }
    FoldPreview #body { height: 1fr; }
    """
    BINDINGS = [Binding("enter", "answer(True)", "Apply this fold"), Binding("escape", "answer(False)", "Discard")]

    def __init__(self, plan: FoldPlan, economics: str | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.economics = economics  # what the fold saves per later send and costs once, at the model's prices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal("Fold preview (nothing applied yet)"), classes="title")
            keys = "Enter applies this fold · Esc discards it" if self.plan.report.compressed else "Esc closes"
            cost = f"\n{self.economics}" if self.economics and self.plan.report.compressed else ""
            yield Label(literal(f"{preview_summary(self.plan)}{cost}\n{keys}"), id="summary")
            with VerticalScroll(id="body"):
                yield Markdown(visible(preview_markdown(self.plan)))
        yield Footer()  # this screen's keys, not the chat's underneath

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # nothing would fold: there is nothing to apply, so the footer offers only Esc
        return not (action == "answer" and parameters == (True,) and not self.plan.report.compressed)

    def action_answer(self, apply: bool) -> None:
        self.dismiss(apply and self.plan.report.compressed)
