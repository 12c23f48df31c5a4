"""The model picker on its own: it opens before the models are read, and says so when they cannot be."""

from __future__ import annotations

import threading

from foldchat.tui.screens.model_picker import ModelChoice, ModelPicker
from textual.app import App
from textual.widgets import Label, OptionList

from tui.conftest import wait_for


async def test_the_picker_shows_loading_then_the_models_or_why_not():
    release = threading.Event()

    def slow() -> list[ModelChoice]:
        release.wait(10)
        return [ModelChoice("local", 8192, 0, 0, "fits (12)")]

    def broken() -> list[ModelChoice]:
        raise ValueError("litellm could not map this model")

    app: App[None] = App()
    async with app.run_test(size=(120, 30)) as pilot:
        picker = ModelPicker(slow, "local")
        await app.push_screen(picker)
        options = picker.query_one(OptionList)
        assert "loading models" in str(options.get_option_at_index(0).prompt)  # open before the list is read
        release.set()
        await wait_for(
            pilot, lambda: options.option_count == 1 and "local" in str(options.get_option_at_index(0).prompt)
        )
        await pilot.press(*"zz")  # matches nothing listed: what Enter will do is said
        hint = picker.query_one("#warning", Label)
        await wait_for(pilot, lambda: "Enter switches to 'zz'" in str(hint.content))
        app.pop_screen()
        failing = ModelPicker(broken, "local")
        await app.push_screen(failing)
        warning = failing.query_one("#warning", Label)
        await wait_for(pilot, lambda: "could not list the models (ValueError" in str(warning.content))
