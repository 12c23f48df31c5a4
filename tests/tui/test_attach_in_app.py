"""Attaching in the app, driven by the Pilot against a loopback OpenAI-format server: /attach, @path with
Tab completion, a pasted path, the tray's one line per file (name, size, tokens) counted in the gauge,
one key to take one out, the file's text in the request, the transcript's collapsed line, and an image
refused clearly for a model that takes none."""

from __future__ import annotations

from foldchat.tui.widgets.attachment_tray import AttachmentTray
from foldchat.tui.widgets.composer import Composer
from foldchat.tui.widgets.message import MessageView
from textual import events
from textual.widgets import Collapsible

from attachment_bench import png
from tui.conftest import wait_for
from tui.test_chat_flows import chat, gauge, ready, ready_chat, replies, send

NOTES = "# Trip notes\nFerry: blue pier behind the fish market, 08:40.\n" + "Museums: Gulbenkian, Tile museum.\n" * 60


def tray(screen) -> AttachmentTray:
    return screen.query_one(AttachmentTray)


def lines(screen) -> list[str]:
    t = tray(screen)
    return [str(t.get_option_at_index(i).prompt) for i in range(t.option_count)]


async def attach(pilot, screen, spec: str, count: int = 1) -> None:
    """/attach `spec`, and wait for `count` lines in the tray."""
    await send(pilot, f"/attach {spec}")
    await wait_for(pilot, lambda: len(lines(screen)) == count)


def sent_text(fake) -> str:
    content = fake.requests[-1]["messages"][-1]["content"]
    return content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)


async def test_attach_shows_a_line_counts_it_and_sends_the_file(app_factory, fake, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await attach(pilot, screen, f"{notes}", 1)
        [line] = lines(screen)
        assert line.startswith("attached notes.md · 2 KB · ") and line.endswith(" tokens")
        tokens = tray(screen).tokens
        assert tokens > 300 and gauge(screen).typing == tokens  # the gauge counts what is about to go
        await send(pilot, "when does the ferry leave?")
        assert "blue pier behind the fish market" in sent_text(fake) and not lines(screen)
        user = [v for v in screen.query(MessageView) if v.data.role == "user"][-1]
        assert user.data.text == "when does the ferry leave?" and user.data.attachments[0][0].startswith("notes.md")
        titles = [str(c.title) for c in user.query(Collapsible)]
        assert titles == [user.data.attachments[0][0].join(["attached ", ""])]  # one collapsed line
        assert all(c.collapsed for c in user.query(Collapsible))


async def test_backspace_in_an_empty_composer_takes_the_last_attachment_out(app_factory, fake, tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"file {name}\n")
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await attach(pilot, screen, f"{tmp_path}/*.txt", 2)
        screen.query_one(Composer).focus()
        await pilot.press("backspace")
        await wait_for(pilot, lambda: len(lines(screen)) == 1)
        assert lines(screen)[0].startswith("attached a.txt") and gauge(screen).typing == tray(screen).tokens
        await send(pilot, "what is in it?")
        assert "file a.txt" in sent_text(fake) and "file b.txt" not in sent_text(fake)


async def test_each_attachment_backspace_takes_out_is_said_and_ctrl_z_brings_it_back(app_factory, fake, tmp_path):
    """Holding Backspace in an empty composer took every attachment out, silently and for good."""
    for name in ("notes.txt", "[bold]plan.txt"):  # a name is text, never markup
        (tmp_path / name).write_text(f"file {name}\n")
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await attach(pilot, screen, f"{tmp_path}/*.txt", 2)
        composer = screen.query_one(Composer)
        composer.focus()
        await pilot.press(*"hi", "backspace", "backspace", "backspace", "backspace")
        await wait_for(pilot, lambda: not lines(screen))
        told = [str(n.message) for n in app._notifications]
        assert "removed notes.txt from this message · Ctrl+Z brings it back" in told
        assert "removed [bold]plan.txt from this message · Ctrl+Z brings it back" in told

        await pilot.press("x", "ctrl+z")  # what was typed since goes first, as any undo
        assert composer.text == "" and not lines(screen)
        await pilot.press("ctrl+z")  # then the attachments, the last taken out first
        await wait_for(pilot, lambda: len(lines(screen)) == 1)
        assert lines(screen)[0].startswith("attached [bold]plan.txt")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: len(lines(screen)) == 2)
        assert gauge(screen).typing == tray(screen).tokens
        await pilot.press("ctrl+z")  # then the text edits before them
        assert composer.text == "hi" and len(lines(screen)) == 2
        await send(pilot, "what is in them?")
        assert "file notes.txt" in sent_text(fake) and "file [bold]plan.txt" in sent_text(fake)


async def test_at_path_attaches_and_tab_completes_it(app_factory, fake, tmp_path):
    (tmp_path / "itinerary-final.md").write_text("Day 1: Lisbon. Day 2: Sintra.\n")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        composer = screen.query_one(Composer)
        composer.focus()
        composer.text = f"look at @{tmp_path}/itin"
        composer.move_cursor(composer.document.end)
        await pilot.press("tab")
        await wait_for(pilot, lambda: composer.text.endswith("itinerary-final.md"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: replies(screen) and replies(screen)[-1].data.status != "streaming")
        assert "Day 2: Sintra." in sent_text(fake) and "[attached itinerary-final.md, " in sent_text(fake)
        (tmp_path / "drafts").mkdir()
        (tmp_path / "drafts" / "letter.txt").write_text("Dear Inés,\n")
        await send(pilot, f"and the folder @{tmp_path}/drafts")  # a folder: its files
        assert "Dear Inés," in sent_text(fake) and "Day 2" not in sent_text(fake)


async def test_a_pasted_path_is_attached(app_factory, fake, tmp_path):
    log = tmp_path / "server.log"
    log.write_text("ERROR connection refused on port 5433\n")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = chat(app)
        composer = screen.query_one(Composer)
        composer.focus()
        composer.post_message(events.Paste(str(log)))
        await wait_for(pilot, lambda: lines(screen))
        assert lines(screen)[0].startswith("attached server.log")


async def test_an_image_for_a_model_that_takes_none_is_refused_and_kept_until_removed(app_factory, fake, tmp_path):
    photo = tmp_path / "receipt.png"
    photo.write_bytes(png(1, 1))
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await attach(pilot, screen, f"{photo}", 1)
        composer = screen.query_one(Composer)
        composer.text = "what is this?"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: composer.text == "what is this?")
        await pilot.pause(0.2)
        assert fake.requests == [] and lines(screen)[0].startswith("attached receipt.png")
        assert any("takes no images" in str(n.message) for n in app._notifications)
        composer.text = ""
        await pilot.press("backspace")
        await wait_for(pilot, lambda: not lines(screen))
        await send(pilot, "what is this?")
        assert len(fake.requests) == 1


async def test_a_message_over_the_per_message_cap_with_its_attachments_is_not_sent(fake, tmp_path, monkeypatch):
    from foldchat.tui.app import AppOptions, make_app

    from tui.conftest import settings_for

    monkeypatch.setenv("FAKE_KEY", "sk-test")
    for name in ("a.log", "b.log"):
        (tmp_path / name).write_text("line of a log\n" * 50)  # 700 bytes each: each under the cap, both over
    settings = settings_for(fake).model_copy(update={"max_input_bytes": 1_000})
    app = make_app(AppOptions(settings=settings, database=tmp_path / "tui.db"))
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await attach(pilot, screen, f"{tmp_path}/*.log", 2)
        composer = screen.query_one(Composer)
        composer.text = "what happened?"
        composer.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: composer.text == "what happened?" and len(lines(screen)) == 2)
        assert fake.requests == [] and any("max_input_bytes" in str(n.message) for n in app._notifications)


async def test_pasted_text_goes_into_the_composer_once(app_factory, fake):
    """Textual runs the `_on_paste` of every class up the composer's line: calling the text area's again
    put every paste in twice (and doubled its tokens, which set off a fold)."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        composer = chat(app).query_one(Composer)
        composer.focus()
        app.post_message(events.Paste("PASTETEST alpha beta\nsecond line"))  # as the terminal's driver sends it
        await wait_for(pilot, lambda: bool(composer.text))
        await pilot.pause(0.2)
        assert composer.text == "PASTETEST alpha beta\nsecond line"
