"""Snapshot tests (pytest-textual-snapshot): what users see, pinned as SVG."""

from __future__ import annotations

from pathlib import Path

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send

HERE = Path(__file__).parent


def test_gauge_low_near_over(snap_compare):
    assert snap_compare(HERE / "snapshot_apps.py:GaugeApp", terminal_size=(140, 5))


def test_fold_marker_between_dimmed_and_live_messages(snap_compare):
    assert snap_compare(HERE / "snapshot_apps.py:MarkerApp", terminal_size=(100, 20))


def test_fold_inspector(snap_compare):
    assert snap_compare(HERE / "snapshot_apps.py:InspectorApp", terminal_size=(110, 36))


def test_model_picker(snap_compare):
    assert snap_compare(HERE / "snapshot_apps.py:PickerApp", terminal_size=(110, 20))


def test_welcome_panel_of_the_embedded_model(snap_compare):
    assert snap_compare(HERE / "snapshot_apps.py:WelcomeApp", terminal_size=(100, 24))


def test_main_screen_after_a_reply(snap_compare, app_factory):
    app = app_factory()

    async def converse(pilot):
        await ready(pilot)
        await send(pilot, "Hello! What can you do?")
        await wait_for(pilot, lambda: chat(app).gauge_state.tokens > 0)
        app.clear_notifications()
        app.set_focus(None)  # no text cursor: its blink phase would make the render time-dependent
        await pilot.pause(0.2)

    assert snap_compare(app, run_before=converse, terminal_size=(100, 24))
