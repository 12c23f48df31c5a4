"""Nothing the app reads can hang it: a named pipe named by `@path` or `/attach` is refused in one line
(opening one waits for a writer), a `ui-state.json` that is a pipe or `/dev/zero` is ignored with a
notice, and a message whose `@path` could not be attached stays in the composer until a second Enter."""

from __future__ import annotations

import os

from foldchat.tui.app import AppOptions, make_app
from foldchat.tui.widgets.attachment_tray import AttachmentTray
from foldchat.tui.widgets.composer import Composer

from tui.conftest import settings_for, wait_for
from tui.test_chat_flows import ready, ready_chat, replies


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def enter(pilot, text: str) -> None:
    composer = pilot.app.screen.query_one(Composer)
    composer.text = text
    composer.focus()
    await pilot.press("enter")


async def test_an_at_path_naming_a_pipe_is_refused_and_the_message_waits_for_a_second_enter(
    app_factory, fake, tmp_path
):
    pipe = tmp_path / "p"
    os.mkfifo(pipe)
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await enter(pilot, f"@{pipe} hi")
        await wait_for(pilot, lambda: any("named pipe" in n for n in notes(app)))
        await wait_for(pilot, lambda: any("back in the composer" in n for n in notes(app)))
        assert fake.requests == [] and not replies(screen)  # nothing sent without the user knowing
        assert screen.query_one(Composer).text == f"@{pipe} hi"
        await pilot.press("enter")  # the second Enter sends it as it is
        await wait_for(pilot, lambda: fake.requests)
        assert fake.requests[-1]["messages"][-1]["content"] == f"@{pipe} hi"
        await wait_for(pilot, lambda: replies(screen) and replies(screen)[-1].data.status != "streaming")


async def test_slash_attach_of_a_pipe_says_why_and_attaches_nothing(app_factory, fake, tmp_path):
    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await enter(pilot, f"/attach {pipe}")
        await wait_for(pilot, lambda: any("fifo is a named pipe: only regular files are read" in n for n in notes(app)))
        assert screen.query_one(AttachmentTray).attachments == []
        await enter(pilot, "still typing fine")  # the app answers: nothing waits on the pipe
        await wait_for(pilot, lambda: fake.requests)


async def test_a_too_big_at_path_keeps_the_message_in_the_composer(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    big = tmp_path / "big.log"
    big.write_text("x" * 5000)
    settings = settings_for(fake).model_copy(update={"max_attachment_bytes": 1000})
    app = make_app(AppOptions(settings=settings, database=tmp_path / "tui.db"))
    async with ready_chat(app, (120, 40)) as (pilot, screen):
        await enter(pilot, f"summarise @{big}")
        await wait_for(pilot, lambda: any("back in the composer" in n for n in notes(app)))
        assert any("over max_attachment_bytes" in n for n in notes(app))
        assert fake.requests == [] and screen.query_one(Composer).text == f"summarise @{big}"


async def _starts_despite(app, pilot) -> None:
    await ready(pilot)
    await wait_for(pilot, lambda: any(str(n.title) == "Saved app state ignored" for n in app._notifications))


async def test_a_ui_state_file_that_is_a_pipe_is_ignored_with_a_notice(app_factory, fake, tmp_path):
    os.mkfifo(tmp_path / "ui-state.json")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await _starts_despite(app, pilot)
        assert any("named pipe" in n for n in notes(app))


async def test_a_ui_state_file_linked_to_dev_zero_is_ignored_with_a_notice(app_factory, fake, tmp_path):
    (tmp_path / "ui-state.json").symlink_to("/dev/zero")
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await _starts_despite(app, pilot)
        assert any("device" in n for n in notes(app))


async def test_a_file_name_with_markup_and_escapes_is_shown_as_written(app_factory, fake, tmp_path):
    name = "[b]x [@click=app.quit]q \x1b]2;title\x07"  # no closing tags: "/" cannot be in a file name
    pipe = tmp_path / name
    os.mkfifo(pipe)
    app = app_factory()
    async with ready_chat(app, (120, 40)) as (pilot, _screen):
        await enter(pilot, f"/attach {tmp_path}/*")
        said = await wait_for(pilot, lambda: [n for n in notes(app) if "named pipe" in n])
        assert "[b]x [@click=app.quit]q" in said[0] and "\x1b" not in said[0] and "\x07" not in said[0]
        assert app.is_running  # the click markup was text, not an action
