"""Daily use: full-text history search, edit and resend, copying code, live thinking, the
title on screen, the model picker, user text as typed, the gauge at 80 columns."""

from __future__ import annotations

from dataclasses import replace

from foldchat.tui.screens.history import HistoryScreen
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.gauge import ContextGauge
from foldchat.tui.widgets.message import MessageView, last_code_block
from foldchat.tui.widgets.reply_markdown import ReplyMarkdown
from textual.widgets import Collapsible, Input, OptionList, Static

from tui.conftest import wait_for
from tui.test_chat_flows import chat, ready, send
from tui.test_streaming_reply import drawn


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_history_search_finds_message_text_and_shows_the_line(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Plans\nthe ferry to Cacilhas leaves at nine")
        first = screen.backend.conversation_id
        await send(pilot, "/new")
        await wait_for(pilot, lambda: screen.backend.conversation_id != first)
        await send(pilot, "something else")
        await send(pilot, "/history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        history.query_one("#search", Input).focus()
        history.query_one("#search", Input).value = "cacilh"  # a word of a message, not of a title, unfinished
        options = history.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 1)
        prompt = str(options.get_option_at_index(0).prompt)
        assert prompt.startswith(f"{first:>5}") and "› the ferry to Cacilhas leaves at nine" in prompt
        await pilot.press("enter")  # in the search box: resumes the best hit (it took a second Enter)
        await wait_for(pilot, lambda: screen.backend.conversation_id == first)
        assert next(v.data.text for v in screen.query(MessageView)).startswith("Plans")


async def test_user_text_is_shown_as_typed_and_replies_as_markdown(app_factory, fake):
    fake.reply = "# Title\n\n- one"
    typed = "# not a heading\n- not a list\n    indented **not bold**"
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, typed)
        user, reply = [v for v in screen.query(MessageView) if v.data.role in ("user", "assistant")]
        await pilot.pause(0.2)
        assert user.draws_itself and reply.draws_itself and not user.children and not reply.children
        assert drawn(user) == typed.splitlines()  # line breaks and spaces kept, no Markdown
        reply_lines = [line.strip() for line in drawn(reply)]
        assert "Title" in reply_lines and "# Title" not in reply_lines and "- one" not in reply_lines  # Markdown


async def test_y_copies_the_last_code_block_and_says_what_it_cannot_know(app_factory, fake):
    fake.reply = "Try:\n```python\nprint(1)\n```\nor\n~~~\nrm -rf build\nmake\n~~~\ndone"
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "how do I rebuild?")
        user, reply = [v for v in screen.query(MessageView) if v.data.role in ("user", "assistant")]
        reply.focus()
        await pilot.press("enter", "y")
        assert app.clipboard == "rm -rf build\nmake"
        assert any("Code block (2 lines) sent to the terminal's clipboard (OSC 52)" in n for n in notes(app))
        assert any("cannot confirm" in n for n in notes(app))
        user.focus()
        await pilot.press("enter", "y")
        assert any("no code block" in n for n in notes(app)) and app.clipboard == "rm -rf build\nmake"


def test_last_code_block_takes_an_unclosed_fence_to_the_end():
    assert last_code_block("a\n```\nx\n```\n```sh\ny\nz") == "y\nz"
    assert last_code_block("no code `here`") is None
    assert last_code_block("````md\n```\ninner\n```\n````") == "```\ninner\n```"


async def test_thinking_is_shown_live_while_the_reply_streams(app_factory, fake):
    fake.script = ["think"]
    fake.answer_gate.clear()
    app = app_factory(request_timeout=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        screen.query_one(Composer).text = "hello"
        screen.query_one(Composer).focus()
        await pilot.press("enter")

        def streaming_thinking():
            views = [v for v in screen.query(MessageView) if v.data.role == "assistant"]
            return views and views[-1].data.status == "streaming" and views[-1].query(".thinking") and views[-1]

        view = await wait_for(pilot, streaming_thinking)  # the answer is held back: still streaming
        await wait_for(pilot, lambda: view.data.reasoning.strip() == fake.thinking)
        thinking = view.query_one(".thinking", Collapsible)
        assert thinking.collapsed and thinking.title == "thinking…"
        assert str(thinking.query_one(Static).content).strip() == fake.thinking
        fake.answer_gate.set()
        await wait_for(pilot, lambda: view.data.status == "complete" and thinking.title == "thinking")
        assert str(thinking.query_one(Static).content).strip() == fake.thinking
        stored = screen.backend.context.transcript()[-1].message
        assert stored.extras["reasoning_content"].strip() == fake.thinking
        # the answer is drawn as Markdown below the thinking, once, as a stored reply with thinking is
        assert [type(child).__name__ for child in view.children] == ["Collapsible", "ReplyMarkdown"]
        assert view.query_one(ReplyMarkdown).source == stored.text and stored.text


def contents(fake) -> list[str]:
    return [m["content"] for m in fake.requests[-1]["messages"]]


async def test_up_in_an_empty_composer_edits_and_resends_the_last_prompt(app_factory, fake):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "first question")
        await send(pilot, "second question")
        composer = screen.query_one(Composer)
        composer.focus()
        await pilot.press("up")
        assert composer.text == "second question" and screen.conversation.editing is not None
        await pilot.press("escape")  # cancel: nothing changes
        assert composer.text == "" and screen.conversation.editing is None
        await pilot.press("up")
        composer.text = "second question, sharper"
        count = len(fake.requests)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: len(fake.requests) > count and screen.backend.context.transcript()[-1].status == "complete"
        )
        transcript = screen.backend.context.transcript()
        assert len(transcript) == 6  # nothing deleted: the old prompt and its reply are kept, superseded
        new_prompt = transcript[4].id
        assert [m.superseded_by for m in transcript] == [None, None, new_prompt, new_prompt, None, None]
        assert contents(fake) == ["first question", fake.reply, "second question, sharper"]
        await wait_for(pilot, lambda: len([v for v in screen.query(MessageView) if v.has_class("-superseded")]) == 2)


async def test_up_walks_back_through_earlier_prompts(app_factory):
    """↑ only ever loaded the last prompt; a shell's history goes further back."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for text in ("first question", "a two-line\nsecond question", "third question"):
            await send(pilot, text)
        composer = screen.query_one(Composer)
        composer.focus()
        shown = []
        for _ in range(5):  # the second prompt has two lines: ↑ first moves to its first line
            await pilot.press("up")
            await pilot.pause()
            shown.append(composer.text)
        assert shown == ["third question", "a two-line\nsecond question", "a two-line\nsecond question",
                         "first question", "first question"]  # fmt: skip
        await wait_for(pilot, lambda: "No earlier prompt" in notes(app))
        await pilot.press("escape")
        assert composer.text == "" and screen.conversation.editing is None


async def test_e_on_a_folded_prompt_undoes_the_folds_covering_it(app_factory, fake):
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(3):
            await send(pilot, f"message {n} about INV-{n}: " + "the invoice lines and totals " * 120)
        await send(pilot, "/resummarize")
        fold = await wait_for(pilot, lambda: screen.backend.context.active_fold())
        first = next(v for v in screen.query(MessageView) if v.data.role == "user")
        assert first.data.id is not None and first.data.id <= fold.last_message_id
        first.focus()
        await pilot.press("enter", "e")
        assert screen.query_one(Composer).text.startswith("message 0 about INV-0")
        screen.query_one(Composer).text = "just one short question"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.backend.context.transcript()[-1].status == "complete")
        assert screen.backend.context.active_fold() is None
        assert any(f"Fold {fold.id} undone" in n for n in notes(app))
        assert contents(fake) == ["just one short question"]
        live = [m for m in screen.backend.context.transcript() if m.superseded_by is None]
        assert [m.message.text for m in live] == ["just one short question", fake.reply]


async def test_e_on_a_prompt_edits_it_and_pins_nothing(app_factory, fake):
    """An edit request was a kind of pin request to Textual: `e` also pinned the prompt, and the pin outlived
    the edit (the next snapshot carried the replaced words as pinned)."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Plan a trip to Porto in May")
        prompt = next(v for v in screen.query(MessageView) if v.data.role == "user")
        prompt.focus()
        await pilot.press("enter", "e")
        await pilot.pause()
        assert screen.query_one(Composer).text == "Plan a trip to Porto in May"
        assert screen.conversation.editing == prompt.data.id
        await pilot.press("escape")
        await pilot.pause()
        assert screen.backend.context.pinned_ids() == [] and not any("Pinned" in n for n in notes(app))


async def test_the_gauge_is_readable_at_80_columns():
    from tui.snapshot_apps import GaugeApp

    app = GaugeApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for gauge in app.query(ContextGauge):
            line = gauge.render()
            assert line.cell_len <= gauge.size.width  # nothing cut off: the cost at the end is visible
            assert "$" in line.plain and "%" in line.plain and "fold" in line.plain
        gauge.state = replace(gauge.state, model="openrouter/anthropic/claude-3.5-sonnet-20241022")
        await pilot.pause()
        assert gauge.render().cell_len <= gauge.size.width and "$1.2000" in gauge.render().plain


def test_help_table_keeps_export_formats_in_one_cell_and_lists_the_keys():
    from foldchat.tui.slash import help_markdown
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("gfm-like").parse(help_markdown())
    rows, cells = [], []
    for token in tokens:
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(token.content)
        elif token.type == "tr_close":
            rows.append(cells)
    export = next(r for r in rows if r[0].startswith("`/export"))
    assert len(export) == 2 and export[0] == "`/export [md|json]`"
    keys = {r[0] for r in rows}
    assert {"Ctrl+O", "Ctrl+T or F2", "↑", "Enter, then e", "Enter, then p / c / y"} <= keys


async def test_the_title_is_on_screen_and_the_picker_offers_recent_and_keyed_models(app_factory, monkeypatch):
    from foldchat.tui.screens.model_picker import ModelPicker
    from textual.widgets import Label

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-only")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        status = screen.query_one("#status", Label)
        await send(pilot, "Budget for the [bold]Lisbon[/] trip")
        await wait_for(pilot, lambda: str(status.content).startswith("Budget for the [bold]Lisbon[/] trip · "))
        await send(pilot, "/model fake-small")
        await wait_for(pilot, lambda: screen.backend.target.name == "fake-small")
        first = screen.backend.conversation_id
        await send(pilot, "/new")
        await wait_for(pilot, lambda: screen.backend.conversation_id != first)
        await wait_for(pilot, lambda: "(new)" in str(status.content))
        await send(pilot, "/model")
        picker = await wait_for(
            pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.choices and app.screen
        )
        names = [c.name for c in picker.choices]
        assert "fake-small" in names and "openai/gpt-4o-mini" in names  # remembered; the key is set
        assert next(c for c in picker.choices if c.name == "fake-small").note == "recent"
        assert "anthropic/claude-3-5-haiku-latest" not in names  # no key for it


async def test_the_model_picker_filters_as_you_type_and_warns_about_a_missing_key(app_factory, monkeypatch):
    """It listed every model with no filter, opened only once all were resolved, and switched to a model
    whose key was not set without a word (the next reply failed)."""
    from foldchat.tui.screens.model_picker import ModelPicker
    from textual.widgets import Label

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-only")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "hello")
        await send(pilot, "/model openai/gpt-4o-mini")  # this conversation's model: a recent one...
        await wait_for(pilot, lambda: screen.backend.target.name == "openai/gpt-4o-mini")
        first = screen.backend.conversation_id
        await send(pilot, "/new")
        await wait_for(pilot, lambda: screen.backend.conversation_id != first)
        await send(pilot, "/model fake")
        await wait_for(pilot, lambda: screen.backend.target.name == "fake")
        monkeypatch.delenv("OPENAI_API_KEY")  # ...whose key is gone
        await send(pilot, "/model")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen)
        options = picker.query_one(OptionList)
        await wait_for(pilot, lambda: picker.choices and options.option_count > 1)
        await pilot.press(*"mini")  # the filter has the focus
        await wait_for(pilot, lambda: options.option_count == 1)
        assert "needs OPENAI_API_KEY" in str(options.get_option_at_index(0).prompt)
        await pilot.press("enter")
        warning = picker.query_one("#warning", Label)
        await wait_for(pilot, lambda: "OPENAI_API_KEY is not set" in str(warning.content))
        assert app.screen is picker and screen.backend.target.name == "fake"  # not switched yet
        await pilot.press("enter")  # asked twice: the user knows
        await wait_for(pilot, lambda: screen.backend.target.name == "openai/gpt-4o-mini")


async def test_a_history_search_the_engine_refuses_says_why_and_lists_nothing(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "the ferry to Cacilhas leaves at nine")
        await send(pilot, "/history")
        history = await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen)
        history.query_one("#search", Input).value = "ferry " * 300  # over the search limit
        await wait_for(pilot, lambda: any("1,000 characters" in str(n) for n in notes(app)))
        assert history.query_one(OptionList).option_count == 0 and history.searching is not None
        assert history.searching.error is None  # said, not a failed worker
