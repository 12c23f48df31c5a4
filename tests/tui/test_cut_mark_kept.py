"""A reply the output cap cut off stays marked: after a restart its note is back under it, and the
Markdown export (which `show` shares its marks with) carries it. It lived only in the view: a restart
lost it."""

from __future__ import annotations

from foldchat.engine import OpenOptions, Workspace

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import ready_chat, replies, send


async def test_the_cut_mark_is_kept_across_a_restart_and_in_the_export(app_factory, fake, tmp_path):
    fake.script = ["cut", "ok"]
    async with ready_chat(app_factory(), (100, 30)) as (pilot, screen):
        await send(pilot, "tell me everything")
        await wait_for(pilot, lambda: "[cut at" in replies(screen)[-1].data.note)
    async with ready_chat(app_factory(), (100, 30)) as (pilot, screen):  # the same database, reopened
        cut = await wait_for(pilot, lambda: replies(screen) and replies(screen)[-1])
        assert "[cut at" in cut.data.note and "/continue" in cut.data.note and cut.data.error is None
    with Workspace.open(OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")) as workspace:
        exported = workspace.export(1, "md")
    assert "## [2] assistant [cut at " in exported  # the reply to the first prompt: #2
