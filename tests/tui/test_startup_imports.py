"""The engine's imports run off the UI thread at start-up, so the first paint comes sooner.

Imported by the UI thread right after the first frame, the session's modules (engine/session.py, replies.py) and their pydantic models
(~0.25 s) held back the frame that draws the composer: first paint went from ~0.4 s to ~0.65 s. The app
runs in a fresh interpreter here (this process has long imported the engine), with an audit hook that
records which thread imports what.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, threading

    imported_on = {}

    def hook(event, args):
        if event == "import" and args[0] not in imported_on:
            imported_on[args[0]] = threading.current_thread() is threading.main_thread()

    sys.addaudithook(hook)

    from foldchat.tui.app import AppOptions, make_app

    async def main():
        app = make_app(AppOptions(database=sys.argv[1], new=True))
        async with app.run_test() as pilot:
            screen = app.get_screen("chat")
            for _ in range(600):
                if screen.backend is not None:
                    break
                await pilot.pause(0.05)
            assert screen.backend is not None, f"the session never opened: {screen.status}"

    asyncio.run(main())
    print(json.dumps(imported_on))
    """
)


def test_the_session_and_its_models_are_imported_off_the_ui_thread(tmp_path, monkeypatch):
    monkeypatch.setenv("FOLDCHAT_CONFIG", os.devnull)  # defaults: the local model
    monkeypatch.setenv("FOLDCHAT_LOCAL__STARTUP_TIMEOUT", "1")  # the model server is not what this is about
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "tui.db")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    on_main_thread = json.loads(done.stdout.strip().splitlines()[-1])
    for module in ("foldchat.engine.replies", "foldchat.engine.snapshot", "pydantic", "foldchat.tui.presenters"):
        assert module in on_main_thread, f"{module} was never imported"
        assert not on_main_thread[module], f"{module} was imported by the UI thread"
