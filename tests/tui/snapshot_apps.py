"""Small apps that show one widget or screen with fixed data, for snapshot tests."""

from __future__ import annotations

from foldchat.engine.config import LocalModelSettings
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.providers.target import ModelTarget
from foldchat.tui.screens.fold_inspector import FoldInspector, FoldView
from foldchat.tui.screens.model_picker import ModelChoice, ModelPicker
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.fold_marker import FoldMarker, marker_text
from foldchat.tui.widgets.gauge import ContextGauge, GaugeState
from foldchat.tui.widgets.message import MessageData, MessageView
from foldchat.tui.widgets.welcome import Welcome
from textual.app import App, ComposeResult


class GaugeApp(App[None]):
    def compose(self) -> ComposeResult:
        common = {"window": 128_000, "reserved": 4_096, "trigger": 102_400, "model": "gpt-4o"}
        for tokens, typing, cost, turns in ((12_000, 0, 0.0123, 57), (85_000, 300, 0.41, 8), (101_000, 900, 1.2, 0)):
            gauge = ContextGauge()
            gauge.state = GaugeState(tokens=tokens, typing=typing, cost=cost, turns_left=turns, **common)
            yield gauge


class MarkerApp(App[None]):
    AUTO_FOCUS = None  # the folded messages as they look unselected (a selected one is drawn in full)

    def compose(self) -> ComposeResult:
        yield MessageView(MessageData(1, "user", "Fix PAY-12 in src/pay.py"), folded=True)
        yield MessageView(MessageData(2, "assistant", "Done: **fixed** the rounding.", model="gpt-4o"), folded=True)
        yield FoldMarker(1, marker_text(84, 31_204, 4_102, "rules", (3, 3)))
        yield MessageView(MessageData(3, "user", "Thanks! Now the release notes."))


VIEW = FoldView(
    fold_id=3,
    sections=[
        ("overall_goal", ["Ship PAY-12 before 2026-12-03"]),
        ("user_requests", ["Fix PAY-12 in src/pay.py", "Write release notes for v2.4.0"]),
        ("artifacts", ["read src/pay.py (120 lines)", "ran `pytest -q` → exit 0"]),
        ("pinned", ["Deploy window: Friday 02:00 UTC"]),
    ],
    snapshot_text="<state_snapshot>...</state_snapshot>",
    edited=False,
    covers=(1, 84),
    covered_count=84,
    tokens_before=31_204,
    tokens_after=4_102,
    summarizer="rules",
    trigger="auto",
    chain=["#1 (auto, 3,900 tok)", "#3 (auto, 4,102 tok)"],
)


class InspectorApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(FoldInspector(VIEW))


class PickerApp(App[None]):
    def on_mount(self) -> None:
        choices = [
            ModelChoice("local", 8_192, 0, 0, "will fold first (12,912)"),
            ModelChoice("gpt-4o", 128_000, 2.5, 10.0, "fits (12,345 · ≈ 57 turns left)", "recent"),
            ModelChoice("anthropic/claude-sonnet-4-5", 200_000, 3.0, 15.0, "fits (12,801 · ≈ 103 turns left)"),
        ]
        self.push_screen(ModelPicker(choices, "gpt-4o"))


class WelcomeApp(App[None]):
    """What a first run opens on: the embedded model's welcome panel, over the composer it listens to."""

    AUTO_FOCUS = None  # no text cursor: its blink phase would make the render time-dependent

    def compose(self) -> ComposeResult:
        local = ModelTarget(name="local", litellm_model="openai/foldchat-local", window=8_192, backend=EMBEDDED)
        yield Welcome(local, LocalModelSettings())
        yield Composer()
