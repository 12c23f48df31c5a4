"""Every message's header shows its number, the one snapshots, stubs, the inspector and `recall` cite ("#12"),
drawn (muted) at 80 columns."""

from __future__ import annotations

import re

from foldchat.engine import SNAPSHOT_SECTIONS
from foldchat.engine.references import split_reference
from foldchat.tui.widgets.message import MessageData, MessageView
from foldchat.tui.widgets.transcript import Transcript
from textual.app import App, ComposeResult

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, send
from tui.test_fold_faces import seed_other_conversation


def header_drawn(app: App[None], view: MessageView) -> str:
    """The view's title line as the screen draws it (the view in view)."""
    strips = app.screen._compositor.render_strips()
    return "".join(s.text for s in strips[view.region.y])


async def header_in_view(pilot, view: MessageView) -> str:
    """`view` scrolled to the top of the transcript, its title line as drawn."""
    view.parent.scroll_to_widget(view, top=True, animate=False, immediate=True)
    await pilot.pause()
    return header_drawn(pilot.app, view)


def number_in(header: str) -> int:
    found = re.search(r"#(\d+)", header)
    assert found is not None, header
    return int(found.group(1))


async def test_each_header_shows_the_number_recall_and_the_snapshot_cite_at_80_columns(app_factory, fake, tmp_path):
    seed_other_conversation(fake, tmp_path)  # database ids and this conversation's numbers differ
    app = app_factory(window=6000, new=True)
    async with ready_chat(app, (80, 40)) as (pilot, screen):
        for n in range(3):
            await send(pilot, f"invoice INV-{n} for ACME: " + "the billing lines and totals " * 120)
        session = screen.session
        await wait_for(pilot, lambda: all(re.search(r"#\d", v.header_text()) for v in screen.query(MessageView)))
        await pilot.pause()
        numbers = session.context.message_numbers()
        views = list(screen.query(MessageView))
        assert len(views) == len(numbers) == 6
        for view in views:  # as they were sent: numbered live, not only when the transcript is read again
            assert view.data.id is not None and view.data.id != numbers[view.data.id]
            header = await header_in_view(pilot, view)
            assert number_in(header) == numbers[view.data.id], header

        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: session.context.active_fold() is not None)
        await pilot.pause(0.3)
        snapshot = session.chain.snapshot_of(session.context.active_fold())
        sections = [getattr(snapshot, name) for name in SNAPSHOT_SECTIONS]
        items = [i for s in sections for i in ([s] if isinstance(s, str) else s)]
        asked = next(v for v in screen.query(MessageView) if v.data.text.startswith("invoice INV-1"))
        shown = number_in(await header_in_view(pilot, asked))
        cited = {n for item in items if "INV-1" in item for n in split_reference(item)[1]}
        assert shown in cited, (shown, items)
        assert session.recall(message=shown).startswith(f"[message {shown}, user,")
        assert asked.data.text in session.recall(message=shown)


MODEL = "openrouter/anthropic/claude-3.5-sonnet-20241022-with-a-long-alias-name"


class PinnedReply(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()

    async def on_mount(self) -> None:
        data = MessageData(7, "assistant", "Done.", model=MODEL, number=12)
        await self.query_one(Transcript).show([data], pinned={7}, folded_upto=0)


async def test_a_long_model_name_is_shortened_at_a_word_and_the_number_and_pin_stay():
    app = PinnedReply()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(MessageView)
        header = header_drawn(app, view).strip()
        assert header.startswith("Assistant · #12 · ") and "📌 pinned" in header
        shown = header.rsplit(" · ", 1)[-1]
        assert shown.endswith("…") and MODEL.startswith(shown[:-1]) and MODEL[len(shown) - 1] in "/-_. "
        number = next(s for s in app.screen._compositor.render_strips()[view.region.y] if "#12" in s.text)
        assert number.style.bold is not True  # quiet: not the title's bold colour
        header_colour = next(s for s in app.screen._compositor.render_strips()[view.region.y] if "Assistant" in s.text)
        assert number.style.color != header_colour.style.color
