"""A streaming reply paints cheaply and ends exactly as a stored reply renders.

While it streams, finished Markdown blocks are rendered once each and the block being written is shown
as plain text; these tests drive the real app against the loopback OpenAI server and check what the
user sees: the same Markdown as after a restart, text we did not write kept literal at every moment,
and an interrupted reply kept whole."""

from __future__ import annotations

from foldchat.engine import visible
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.message import MessageData, MessageView
from foldchat.tui.widgets.reply_stream import BlockBoundaries, StreamTail
from textual.geometry import Region

from tui.conftest import wait_for
from tui.test_chat_flows import ready_chat, replies, send

MARKDOWN_REPLY = """# Plan

First paragraph with **bold**, `code` and a [link](https://example.com).
It wraps over two lines.

- one item
- two items
  with a continuation

```python
def f(x):

    return x  # a blank line above, inside the fence
```

| a | b |
|---|---|
| 1 | 2 |

> a quote

Last words."""

HOSTILE = "Look [bold]not bold[/bold] and [@click=app.quit]x[/] \x1b[31mred\x1b[0m \x07bell done"


MARKDOWN_BLOCKS = 7  # heading, paragraph, list, fence, table, quote, paragraph


def drawn(view: MessageView) -> list[str]:
    """A finished message's lines of text as drawn on screen (its title line, padding and blank lines left
    out). A plain reply is drawn by its view, not by a child (one widget less per message)."""
    assert view.draws_itself and not view.children
    width, height = view.outer_size
    lines = [line.text[1:].rstrip() for line in view.render_lines(Region(0, 0, width, height))[1:]]
    return [line for line in lines if line.strip()]


def test_block_boundaries_are_blank_lines_outside_fences_and_closing_fences() -> None:
    boundaries = BlockBoundaries()
    assert boundaries.settled("one line, no end yet") == 0
    assert boundaries.settled("one line\nand the same paragraph\n") == 0
    text = "one line\nand the same paragraph\npara\n\n```\ncode\n\nmore\n"
    assert text[: boundaries.settled(text)].endswith("para\n\n")  # the blank line inside the fence is not an end
    text += "```\nafter"
    assert text[: boundaries.settled(text)].endswith("para\n\n```\ncode\n\nmore\n```\n")
    text += "\n\n~~~~\n~~~\n"  # a shorter fence does not close a longer one
    assert text[: boundaries.settled(text)].endswith("after\n\n")


async def test_streamed_markdown_ends_drawn_as_a_stored_reply(app_factory, fake):
    fake.reply = MARKDOWN_REPLY
    fake.pace = 0.05  # about a dozen frames: blocks finish at different frames, as from a real model
    app = app_factory()
    async with ready_chat(app, (100, 60)) as (pilot, screen):
        await send(pilot, "plan please")
        view = replies(screen)[-1]
        await pilot.pause(0.2)
        streamed = drawn(view)
        assert view.data.text == MARKDOWN_REPLY and not view.query(StreamTail)
        stream = view.stream
        assert stream is not None and stream.markdown_writes <= MARKDOWN_BLOCKS + 1 < stream.paints
        await screen.refresh_transcript()  # what a restart shows: the stored reply rendered in one go
        stored = await wait_for(pilot, lambda: replies(screen)[-1] is not view and replies(screen)[-1])
        await pilot.pause(0.2)
        assert drawn(stored) == streamed
        # drawn as Markdown, not as its source: no markers left, the table ruled, the code kept as written
        # (a link shows its address: nothing on screen opens a URL the user cannot read)
        assert streamed[0] == "Plan"
        # the reply's single newline is a line break as written (Markdown's soft break would join the lines)
        at = streamed.index("First paragraph with bold, code and a link (https://example.com).")
        assert streamed[at + 1] == "It wraps over two lines."
        assert not any(marker in line for line in streamed for marker in ("**", "](", "```", "|---"))
        assert any("def f(x):" in line for line in streamed) and any("return x  # a blank" in line for line in streamed)
        assert any(set(line.strip()) == {"─"} for line in streamed) and any(
            line.split() == ["1", "2"] for line in streamed
        )
        assert any(line.lstrip(" •-").startswith("one item") for line in streamed)


async def test_brackets_and_escapes_stay_literal_during_and_after_streaming(app_factory, fake):
    fake.script = ["held"]
    fake.reply = HOSTILE
    fake.hold_after = 6
    fake.answer_gate.clear()
    app = app_factory(request_timeout=60)
    try:
        async with ready_chat(app, (120, 40)) as (pilot, screen):
            screen.query_one(Composer).text = "say something odd"
            await pilot.press("enter")
            shown = " ".join(HOSTILE.split(" ")[:6])
            view: MessageView = await wait_for(
                pilot, lambda: replies(screen) and replies(screen)[-1].query(StreamTail) and replies(screen)[-1]
            )
            tail = view.query_one(StreamTail)
            # painted within a frame although no further delta arrives while the server holds the rest
            await wait_for(pilot, lambda: str(tail.render()) == visible(shown))
            line = tail.render_lines(Region(0, 0, tail.size.width, 1))[0].text
            assert "[bold]not bold[/bold]" in line and "[@click=app.quit]x[/]" in line and "\x1b" not in line
            # the tail's first line was there before the first words: a few words more ask for no layout pass
            assert tail.size.height == 1 and not tail.show(visible(shown) + " more")
            streaming_height = view.outer_size.height
            assert not screen.query_one(Composer).cursor_blink  # no blink frames while the reply paints
            fake.answer_gate.set()
            await wait_for(pilot, lambda: view.data.status == "complete")
            await wait_for(pilot, lambda: screen.query_one(Composer).cursor_blink)
            await pilot.pause(0.2)
            assert view.outer_size.height == streaming_height  # a one-line reply ends as tall as it streamed
            text = "\n".join(drawn(view))
            assert "[bold]not bold[/bold]" in text and "[@click=app.quit]x[/]" in text
            assert "\x1b" not in text and "\x07" not in text and visible("\x1b[31mred") in text
    finally:
        fake.answer_gate.set()


async def test_interrupt_mid_stream_keeps_the_partial_drawn(app_factory, fake):
    fake.script = ["held"]
    fake.reply = "Para one is done.\n\nPara two is still being written when"
    fake.hold_after = 7
    fake.answer_gate.clear()
    app = app_factory(request_timeout=60)
    try:
        async with ready_chat(app, (120, 40)) as (pilot, screen):
            screen.query_one(Composer).text = "go on"
            await pilot.press("enter")
            partial = " ".join(fake.reply.split(" ")[:7])
            view = await wait_for(
                pilot, lambda: replies(screen) and replies(screen)[-1].data.text == partial and replies(screen)[-1]
            )
            await pilot.press("escape")
            await wait_for(pilot, lambda: view.data.status == "interrupted")
            await pilot.pause(0.2)
            assert view.data.text == partial and not view.query(StreamTail)
            assert drawn(view) == ["Para one is done.", "Para two is still"]
            stored = screen.backend.context.transcript()[-1]
            assert stored.status == "interrupted" and stored.message.text == partial
            # the words shown now are the words shown after a restart
            assert stored.error is not None and stored.error in view.header_text()
            number = screen.backend.context.message_numbers()[stored.id]
            await wait_for(pilot, lambda: f"#{number}" in view.header_text())  # numbered as the turn ends
            assert MessageView(MessageData.from_stored(stored, number=number)).header_text() == view.header_text()
    finally:
        fake.answer_gate.set()


async def test_the_transcript_follows_a_long_reply_while_it_streams(app_factory, fake):
    from foldchat.tui.widgets.transcript import Transcript

    fake.script = ["held"]
    fake.reply = MARKDOWN_REPLY
    words = MARKDOWN_REPLY.split(" ")
    fake.hold_after = len(words) - 3
    fake.answer_gate.clear()
    app = app_factory(request_timeout=60)
    try:
        async with ready_chat(app, (100, 20)) as (pilot, screen):
            transcript = screen.query_one(Transcript)
            screen.query_one(Composer).text = "a long one"
            await pilot.press("enter")
            held = " ".join(words[: fake.hold_after])
            view = await wait_for(
                pilot, lambda: replies(screen) and replies(screen)[-1].data.text == held and replies(screen)[-1]
            )
            # mid-stream, with no further delta: the end of what arrived is in view
            await wait_for(
                pilot, lambda: transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y
            )
            assert view.data.status == "streaming"
            fake.answer_gate.set()
            await wait_for(pilot, lambda: view.data.status == "complete")
    finally:
        fake.answer_gate.set()


async def test_the_tail_has_its_first_room_before_the_first_words():
    """A one-line reply then fills room that is already laid out: no layout pass until the reply ends,
    and its Markdown takes the same one line then (the transcript's geometry does not change)."""
    from textual.app import App

    class TailApp(App[None]):
        def compose(self):
            yield StreamTail()

    app = TailApp()
    async with app.run_test(size=(60, 20)) as pilot:
        tail = app.query_one(StreamTail)
        await pilot.pause()
        assert tail.size.height == 1
        assert tail.show("a one-line reply") is False
        assert tail.show("two\nlines") is True  # grows by a whole step: the next 6 lines need no pass
        assert tail.show("\n".join(["line"] * StreamTail.STEP)) is False
        assert tail.show("\n".join(["line"] * (StreamTail.STEP + 1))) is True


async def test_messages_keep_their_width_when_the_conversation_first_outgrows_the_screen(app_factory, fake):
    """The transcript keeps its scrollbar's room while it has no scrollbar: when it appeared, every
    message rewrapped 2 columns narrower (a layout pass of every visible message, each time)."""
    from foldchat.tui.widgets.transcript import Transcript

    fake.reply = "Short answer."
    app = app_factory()
    async with ready_chat(app, (80, 24)) as (pilot, screen):
        transcript = screen.query_one(Transcript)
        await send(pilot, "first")
        first = screen.query(MessageView).first()
        await wait_for(pilot, lambda: first.size.width > 0)
        width = first.size.width
        for n in range(8):
            if transcript.max_scroll_y > 0:
                break
            await send(pilot, f"prompt {n}")
            await wait_for(pilot, lambda: replies(screen)[-1].data.status == "complete")
            await pilot.pause(0.1)
        assert transcript.max_scroll_y > 0  # the conversation outgrew the screen
        assert first.size.width == width


def test_the_gauge_throttle_is_first_due_one_interval_after_it_starts():
    import time

    from foldchat.tui.widgets.reply_face import Throttle

    throttle = Throttle(0.05)
    assert not throttle.due()
    time.sleep(0.06)
    assert throttle.due() and not throttle.due()


async def test_the_gauge_counts_a_reply_live_while_it_streams_and_its_tokens_join_the_context_at_the_end(
    app_factory, fake
):
    """The live count starts one gauge interval into the reply (a quick reply, the local model's usual
    sentence, is counted once, at its end: a recount is a round trip to the local server and a frame that
    spans the rows from the reply to the gauge); a reply that streams for longer is counted as it grows."""
    from foldchat.tui.widgets.gauge import ContextGauge

    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        seen: list[int] = []
        screen.watch(screen.query_one(ContextGauge), "state", lambda state: seen.append(state.streaming))
        fake.reply, fake.pace = " ".join(f"word{n}" for n in range(40)), 0.04  # ~1.6 s of streaming
        await send(pilot, "long")
        assert replies(screen)[-1].data.status == "complete"
        assert any(seen)  # counted live
        # once it ended, its tokens are in the context's count (the view says "complete" a moment before)
        await wait_for(pilot, lambda: not screen.conversation.reply_underway() and seen[-1] == 0)


async def test_a_prompt_and_its_reply_view_mount_together_and_that_view_streams_the_reply(app_factory, fake):
    """Each mount at the end of a scrolled transcript is a layout pass and a repaint of all of it: the
    reply's view comes with the prompt's, in the same mount, and is the one the reply streams into."""
    from foldchat.tui.widgets.transcript import Transcript

    fake.reply = "An answer in a few words."
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        transcript = screen.query_one(Transcript)
        mounted: list[tuple[str, ...]] = []
        mount = transcript.mount

        def counted(*widgets, **kwargs):
            mounted.append(tuple(w.data.role for w in widgets if isinstance(w, MessageView)))
            return mount(*widgets, **kwargs)

        transcript.mount = counted
        await send(pilot, "a question")
        assert mounted == [("user", "assistant")]
        reply = replies(screen)[-1]
        assert reply.data.status == "complete" and "An answer in a few words." in "\n".join(drawn(reply))
        assert len(replies(screen)) == 1  # no second, empty reply view


async def test_two_prompts_sent_back_to_back_interrupt_nothing_and_make_one_turn(app_factory, fake):
    """The second prompt arrived before the first one's reply worker had started: it asked for a reply
    of its own, which cancelled the first mid-request (an interrupted reply) and, on the local model,
    left the next request waiting behind the one the server was still reading. Then both were stored,
    two user messages in a row answered twice; now the second stays in the composer until the reply ends."""
    fake.reply = "An answer in several words."
    fake.pace = 0.01
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        composer = screen.query_one(Composer)
        composer.post_message(Composer.Submitted("first"))
        composer.post_message(Composer.Submitted("second"))
        await wait_for(pilot, lambda: len(screen.backend.context.transcript()) >= 2 and not screen.conversation.reply_underway())
        await pilot.pause(0.3)
        stored = [(s.message.role, s.status) for s in screen.backend.context.transcript()]
        assert ("assistant", "interrupted") not in stored
        assert stored[-1] == ("assistant", "complete")
        # one send at a time: the second waits in the composer, never a second user turn in a row
        assert [s.message.text for s in screen.backend.context.transcript() if s.message.role == "user"] == ["first"]
        assert composer.text == "second"
        views = screen.query(MessageView)
        assert [v.data.status for v in views if v.data.status in ("streaming", "interrupted")] == []
        assert views.last().data.role == "assistant" and views.last().data.status == "complete"


async def test_a_reply_worker_cancelled_before_it_starts_leaves_no_empty_reply_view(app_factory, fake):
    """The reply's view is mounted with the prompt, before the worker that streams into it runs. A worker
    cancelled before its first step runs none of its code: the next prompt takes the empty view away."""
    from foldchat.tui.widgets.transcript import Transcript

    fake.reply = "An answer."
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        transcript = screen.query_one(Transcript)
        views = await transcript.append_all([MessageData(None, "user", "a prompt"), screen.conversation.reply_data()])
        transcript.prepared_reply = views[-1]
        screen.conversation.stream_reply().cancel()  # before the event loop runs it
        await pilot.pause(0.1)
        assert not screen.conversation.reply_underway()
        composer = screen.query_one(Composer)
        composer.text = "and now"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: (last := screen.query(MessageView).last()).data.role == "assistant"
                       and last.data.status == "complete")  # fmt: skip
        assert not views[-1].is_attached and transcript.prepared_reply is None
        shown = [(v.data.role, v.data.status) for v in screen.query(MessageView)]
        assert shown == [("user", "complete"), ("user", "complete"), ("assistant", "complete")]


async def test_the_waiting_note_is_drawn_with_the_reply_view_not_in_a_frame_of_its_own(app_factory, fake, monkeypatch):
    """The reply's view is mounted with its prompt already saying "waiting for the model…": setting the
    same note again when the reply is asked for repainted its header, one more frame per turn."""
    retitled: list[str] = []
    retitle = MessageView.refresh_header

    def recorded(view: MessageView) -> None:
        retitled.append(view.data.role)
        retitle(view)

    monkeypatch.setattr(MessageView, "refresh_header", recorded)
    fake.script = ["hang", "ok"]  # no answer until released, then a retry that is answered
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        composer = screen.query_one(Composer)
        composer.text = "a question"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.conversation.streaming)
        await pilot.pause(0.5)  # the reply is asked for and not answered: under a second, no count yet
        reply = replies(screen)[-1]
        assert "waiting for the model…" in reply.header_text() and "waiting" in str(reply.border_title)
        assert retitled == []
        fake.release()
        await wait_for(pilot, lambda: reply.data.status != "streaming")
        assert "waiting" not in reply.header_text()
        # a view mounted again from the same data (scrolled back to past the mounted window) neither
        assert "waiting" not in MessageView(reply.data).header_text()


async def test_a_reply_that_ends_well_is_not_restyled_and_a_failed_one_is_marked(app_factory, fake, monkeypatch):
    """A status is a class only where the view looks different (an error, a stop): a class change restyles
    the view and all its children, and every reply paid for one as it went from streaming to complete."""
    from textual.app import App

    restyled: list[bool] = []
    update_styles = App.update_styles

    def recorded(app: App, node, animate: bool = True) -> None:
        if isinstance(node, MessageView):
            restyled.append(node.has_class("-failed"))
        update_styles(app, node, animate)

    monkeypatch.setattr(App, "update_styles", recorded)
    fake.script = ["ok", "401"]  # an answer, then a refusal that no retry changes
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        await send(pilot, "a question")
        reply = replies(screen)[-1]
        assert reply.data.status == "complete" and not reply.has_class("-failed")
        assert restyled == []
        await send(pilot, "another")
        failed = replies(screen)[-1]
        assert failed.data.status == "error" and failed.has_class("-failed")
        assert restyled == [True]  # once, to take the class


async def test_single_newlines_in_a_reply_are_shown_as_line_breaks(app_factory, fake):
    """A poem, an address or a step list keeps its lines (Markdown's rule would join them)."""
    fake.reply = "Roses are red,\nviolets are blue,\nfolds keep\nwhat matters to you."
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        await send(pilot, "a poem please")
        view = replies(screen)[-1]
        await wait_for(pilot, lambda: view.data.status == "complete")
        await pilot.pause(0.2)
        lines = drawn(view)
        assert lines[:4] == ["Roses are red,", "violets are blue,", "folds keep", "what matters to you."], lines


async def test_the_reply_worker_is_the_transcripts_and_what_the_screen_shows_of_it_comes_up_as_messages(
    app_factory, fake, monkeypatch
):
    """The transcript conducts the reply (its worker) and paints it; the gauge's live count and the turn's
    start and end reach the screen as messages (the status line's too: `StatusSaid`), and the reply is
    underway until the screen has recounted the context with it."""
    from foldchat.tui.widgets.transcript import Transcript

    posted: list[str] = []
    post = Transcript.post_message

    turn = {"TurnStarted", "StatusSaid", "ReplyCounted", "TurnOver"}

    def recorded(transcript: Transcript, message) -> bool:  # type: ignore[no-untyped-def]
        if type(message).__name__ in turn:
            posted.append(type(message).__name__)
        return post(transcript, message)

    monkeypatch.setattr(Transcript, "post_message", recorded)
    app = app_factory()
    async with ready_chat(app, (100, 30)) as (pilot, screen):
        transcript = screen.query_one(Transcript)
        fake.reply, fake.pace = " ".join(f"word{n}" for n in range(40)), 0.04  # ~1.6 s of streaming
        composer = screen.query_one(Composer)
        composer.text = "long"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.conversation.streaming)
        workers = [w for w in app.workers if w.group == "reply" and not w.is_finished]
        assert workers and all(w.node is transcript for w in workers)
        await wait_for(pilot, lambda: not screen.conversation.reply_underway())
        assert posted[0] == "TurnStarted" and posted[-1] == "TurnOver", posted
        assert "ReplyCounted" in posted, posted  # the gauge's live count (the status line only after a second's wait)
        assert replies(screen)[-1].data.status == "complete" and screen.gauge_state.streaming == 0
        assert screen.gauge_state.tokens > 0 and not screen.folding
