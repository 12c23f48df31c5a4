"""The fold inspector's snapshot editor refuses a line typed outside every section, names it, and keeps the
editor open with the text: saved, the line was sent but shown nowhere, and the next fold dropped it."""

from __future__ import annotations

import re

from foldchat.engine import snapshot as snap
from foldchat.tui.screens.fold_inspector import FoldInspector

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send

STRAY = "we come back on 23 May, not 22 May"


async def test_a_line_outside_every_section_is_refused_by_name_and_the_editor_stays_open(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(3):
            await send(pilot, f"Booking BK-{n}1234 in Porto: " + "what to see near the river? " * 150)
        await send(pilot, "/resummarize")
        session = screen.backend
        fold = await wait_for(pilot, lambda: session.context.active_fold())
        await send(pilot, "/folds")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        await pilot.press("ctrl+e")
        editor = inspector.query_one("#editor")
        head_end = editor.text.index(">", editor.text.index(snap.SNAPSHOT_OPEN)) + 1
        typed = f"{editor.text[:head_end]}\n{STRAY}{editor.text[head_end:]}"
        editor.text = typed

        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is inspector and inspector.has_class("-editing") and editor.text == typed
        told = [str(n.message) for n in app._notifications]
        assert any(STRAY in line and "outside every section" in line for line in told), told
        assert session.store.fold(fold.id).edited_text is None  # nothing was saved

        first_section = re.compile(rf"(<(?:{'|'.join(snap.LIST_SECTIONS)})>\n)")
        editor.text = first_section.sub(rf"\1- {STRAY}\n", typed.replace(f"\n{STRAY}", "", 1), count=1)
        await pilot.press("ctrl+s")  # in a section: saved, and the inspector shows it there
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: session.store.fold(fold.id).edited_text is not None)
        kept = session.chain.snapshot_of(session.store.fold(fold.id))
        assert any(STRAY in getattr(kept, name) for name in snap.LIST_SECTIONS)
