"""Fold correctness in the app: one count and the conversation's own numbers on every face of a fold, a
re-fold with a focus (and why nothing changed when it cannot), and paused automatic folds in the gauge."""

from __future__ import annotations

import json

from foldchat.engine import FoldFailed, Message, OpenOptions, Workspace
from foldchat.engine.fold.chain import FoldChain
from foldchat.engine.fold.pipeline import REFOLD_SLACK
from foldchat.tui.screens.fold_inspector import FoldInspector
from foldchat.tui.widgets.fold_marker import FoldMarker
from textual.widgets import Label

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import LONG, chat, gauge, ready, send


def seed_other_conversation(fake, tmp_path) -> None:
    """An earlier conversation, so that database ids and the new conversation's numbers differ."""
    options = OpenOptions(settings=settings_for(fake), database=tmp_path / "tui.db")
    with Workspace.open(options) as workspace:
        other = workspace.store.create_conversation(title="earlier")
        for n in range(3):
            workspace.store.append(other, Message.user(f"earlier question {n}"))
            workspace.store.append(other, Message.assistant(f"earlier answer {n}"))


def record_toasts(app) -> list[str]:
    seen: list[str] = []
    notify = app.notify

    def recording(message, **options):
        seen.append(str(message))
        return notify(message, **options)

    app.notify = recording
    return seen


async def test_toast_marker_and_inspector_agree_after_an_auto_fold(app_factory, fake, tmp_path):
    seed_other_conversation(fake, tmp_path)
    app = app_factory(window=4000, new=True)
    toasts = record_toasts(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(8):
            await send(pilot, f"{n} {LONG}")
            if screen.query(FoldMarker):
                break
        marker = (await wait_for(pilot, lambda: list(screen.query(FoldMarker))))[0]
        session = screen.backend
        fold = session.context.active_fold()
        numbers = session.context.message_numbers()
        said = f"Folded {session.chain.coverage(fold)} messages · {fold.tokens_before:,} → {fold.tokens_after:,} tokens"
        assert [t for t in toasts if t.startswith("Folded")] == [f"{said} · {fold.summarizer}"]
        assert str(marker.render()).startswith(f"⟨ {said} · ")

        marker.focus()
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        view = inspector.view
        first, last = numbers[fold.first_message_id], numbers[fold.last_message_id]
        assert first != fold.first_message_id  # the ids are shared by every conversation; numbers are its own
        assert view.covers == (first, last) and 1 <= first <= last <= len(numbers)
        assert (view.covered_count, view.tokens_before, view.tokens_after) == (
            session.chain.coverage(fold),
            fold.tokens_before,
            fold.tokens_after,
        )
        facts = str(inspector.query_one("#facts", Label).render())
        assert f"covers messages {first}..{last} ({view.covered_count} messages)" in facts
        assert len(view.covered) == view.covered_count and view.covered[0].startswith(f"{first} · user: 0 Ticket")


async def test_resummarize_with_nothing_old_enough_says_why_once(app_factory, fake):
    """The status read "Nothing folded: nothing to fold: the context holds only ..."."""
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "a first question")
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: "Nothing folded" in screen.status)
        assert screen.status == (
            "Nothing folded: the context holds only the current user message and its newest exchange, which are "
            "never folded"
        )


async def test_resummarize_with_a_focus_after_a_fold_then_why_nothing_changes(app_factory, fake):
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        session = screen.backend
        for n in range(3):
            await send(pilot, f"invoice INV-{n} for ACME: " + "the billing lines and totals " * 120)
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: len(session.chain.folds()) == 1)
        before = session.usage().tokens

        await send(pilot, "/resummarize keep the billing details")
        await wait_for(pilot, lambda: len(session.chain.folds()) == 2)
        snapshot = session.chain.snapshot_of(session.context.active_fold())
        assert "focus requested for this fold: keep the billing details" in snapshot.key_knowledge
        assert session.usage().tokens <= before + REFOLD_SLACK

        await send(pilot, "/resummarize keep the billing details")  # same focus, no new message
        await wait_for(pilot, lambda: "Nothing folded: no message arrived since the last fold" in screen.status)
        await pilot.pause()
        assert len(session.chain.folds()) == 2
        assert "Nothing folded: no message arrived since the last fold" in str(screen.query_one("#status", Label).render())


async def test_two_failed_automatic_folds_pause_them_in_the_gauge_until_resummarize(app_factory, fake, monkeypatch):
    broken = {"fold": True}
    real_fold = FoldChain.fold

    def fold(self, *args, **options):
        if broken["fold"] and not options.get("force"):
            raise FoldFailed("the summarizer is down")
        return real_fold(self, *args, **options)

    monkeypatch.setattr(FoldChain, "fold", fold)
    app = app_factory(window=6000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "first")
        assert not gauge(screen).fold_paused and "paused" not in str(screen.query_one("#gauge").render())
        await send(pilot, "second")
        await wait_for(pilot, lambda: gauge(screen).fold_paused)
        assert "auto-fold paused" in screen.query_one("#gauge").render().plain[:118]  # within 120 columns
        assert screen.query_one("#gauge").has_class("-paused")
        await send(pilot, "third: the reply still comes, without a fold attempt")
        assert screen.backend.auto.failures == 2

        broken["fold"] = False
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: not gauge(screen).fold_paused)
        assert "paused" not in str(screen.query_one("#gauge").render())
        assert not screen.backend.auto.paused


async def test_a_folded_agent_session_shows_its_trail_by_file_in_the_inspector(fake, tmp_path, monkeypatch):
    """The artifact trail in the app's inspector: one artifacts line per file, edited paths all there."""
    from foldchat.engine.messages import parse_messages
    from foldchat.tui.app import AppOptions, make_app
    from foldchat.tui.literal import md_literal
    from foldchat.tui.screens.fold_inspector import snapshot_markdown

    from fixtures.agent_shapes import trajectory

    monkeypatch.setenv("FAKE_KEY", "sk-test")
    settings = settings_for(fake, 32_000).model_copy(update={"summarizer": "rules"})
    raw, truth = trajectory("swe-agent", steps=40)
    with Workspace.open(OpenOptions(settings=settings, database=tmp_path / "agent.db")) as workspace:
        conversation = workspace.store.create_conversation(title="agent run", model="fake")
        for message in parse_messages(raw):
            workspace.store.append(conversation, message)
    app = make_app(AppOptions(settings=settings, database=tmp_path / "agent.db", conversation=conversation))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for(pilot, lambda: chat(app).model_ready, timeout=90)  # a long transcript to show first
        screen = chat(app)
        await send(pilot, "/resummarize")
        marker = (await wait_for(pilot, lambda: list(screen.query(FoldMarker))))[0]
        marker.focus()
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        artifacts = dict(inspector.view.sections)["artifacts"]
        session = screen.backend
        folded = {m.id: m.message for m in session.context.transcript()}
        calls = [c for i in session.chain.covered_ids(session.context.active_fold()) for c in folded[i].tool_calls]
        edits = [json.loads(c.arguments) for c in calls if c.name == "str_replace_editor"]
        changed = {e["path"] for e in edits if e["command"] in ("str_replace", "create")}
        assert len(changed) >= 3 and changed <= truth.changed  # several files edited in the folded part
        assert len(artifacts) == len({line.split(": ")[0] for line in artifacts})  # one line per file or command
        for path in changed:
            (line,) = [a for a in artifacts if a.startswith(f"{path}: ")]
            assert "edited" in line or "created" in line
        shown = snapshot_markdown(inspector.view).split("### artifacts\n", 1)[1].split("\n\n", 1)[0].split("  \n")
        assert shown == [f"• {md_literal(line)}" for line in artifacts]  # each line literally, Markdown escaped


async def test_the_inspector_shows_identifiers_literally_cuts_excerpts_at_words_and_f3_reaches_markers(
    app_factory, fake
):
    """`__future__` showed as a bold "future", excerpts ended mid-word, and markers were reached only by
    scrolling and tabbing."""
    from textual.widgets import Markdown

    app = app_factory(window=4000)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        await send(pilot, "Add `from __future__ import annotations` to utils_v2.py, then " + "explain the rest. " * 30)
        for n in range(3):
            await send(pilot, f"{n} {LONG}")
        await send(pilot, "/resummarize")
        await wait_for(pilot, lambda: list(screen.query(FoldMarker)))
        screen.query_one("#composer").focus()
        await pilot.press("f3")  # from the composer: the newest marker
        marker = await wait_for(pilot, lambda: isinstance(app.focused, FoldMarker) and app.focused)
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        await pilot.pause(0.2)
        shown = "\n".join(str(block.content) for block in inspector.query_one(Markdown).query("MarkdownBlock"))
        assert "__future__" in shown and "utils_v2.py" in shown
        first = inspector.view.covered[0]
        assert first.endswith("…") and first[:-1].endswith("rest.")  # cut after a whole word
        await pilot.press("escape")
        assert marker is not None


async def test_every_inspector_button_is_on_screen_at_80_columns(app_factory, fake):
    """At 80 columns Close and Undo fold… were off the screen."""
    from textual.widgets import Button

    app = app_factory(window=4000)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = chat(app)
        for n in range(3):
            await send(pilot, f"{n} {LONG}")
        await send(pilot, "/resummarize")
        marker = (await wait_for(pilot, lambda: list(screen.query(FoldMarker))))[0]
        marker.focus()
        await pilot.press("enter")
        inspector = await wait_for(pilot, lambda: isinstance(app.screen, FoldInspector) and app.screen)
        await pilot.pause(0.2)
        for button in inspector.query(Button):
            assert button.region.right <= 80 and button.region.width > 0, (button.id, button.region)


async def test_the_inspector_of_a_long_fold_mounts_a_paragraph_per_section_not_a_widget_per_line():
    """A fold's 232 lines mounted as 232 list-item widgets: /folds froze the app for 3 s (bench/inspector_bench.py)."""
    from foldchat.tui.screens.fold_inspector import FoldInspector, FoldView
    from textual.app import App

    items = [f"item {n}: the ceremony moved to 6pm (#{n})" for n in range(120)]
    view = FoldView(
        fold_id=1, sections=[("key_knowledge", items)], snapshot_text="", edited=False, covers=(1, 200),
        covered_count=200, tokens_before=20_000, tokens_after=3_000, summarizer="rules", trigger="manual",
        chain=["#1"], covered=[f"{n} · user: hello {n}" for n in range(1, 201)], rules=["never say never (#3)"],
    )  # fmt: skip
    app = App[None]()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(FoldInspector(view))
        await pilot.pause()
        shown = list(app.screen.query("Markdown *"))
        assert len(shown) < 40, len(shown)
