"""Attaching files in the app: `/attach PATH|GLOB`, `@path` in a message (Tab completes paths), and a
pasted path. Files are read and counted off the UI thread, checked as `foldchat ask -f` checks them, and
put in the `AttachmentTray` until the message is sent."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from foldchat.engine import (
    Attachment,
    FoldchatError,
    changed_since,
    human_size,
    off_loop,
    read_attachment,
    read_regular,
    takes_images,
)

if TYPE_CHECKING:
    from foldchat.engine import Session

    from ..host import ChatHost, Sender

# the message last kept back because an `@path` in it could not be attached: sent as it is on the next Enter
_told_unattached: WeakKeyDictionary[Sender, str] = WeakKeyDictionary()
FOLDER_FILES = 20  # a folder attaches its files up to this many (the first, by name)
COMPLETIONS = 40
SHOWN_PROBLEMS = 3


def expand(spec: str) -> list[Path]:
    """The files `spec` names: a path, a glob, or a folder (its files, not hidden, up to `FOLDER_FILES`);
    what cannot be looked at (`~nobody`, a name too long, a folder we may not read) names none."""
    try:
        pattern = str(Path(spec).expanduser())
        found = [Path(p) for p in sorted(glob.glob(pattern))] if glob.has_magic(pattern) else [Path(pattern)]
        files: list[Path] = []
        for path in found:
            if path.is_dir():
                inside = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
                files += inside[:FOLDER_FILES]
            else:
                files.append(path)
        return files
    except (OSError, RuntimeError, ValueError):
        return []


def _existing(text: str) -> Path | None:
    """`text` as the path of an existing file or folder, or None (also for what cannot be looked at)."""
    if not text.strip():
        return None  # "@!" is not the current folder
    try:
        path = Path(text).expanduser()
        return path if path.exists() else None
    except (OSError, RuntimeError, ValueError):
        return None


def read_files(session: Session, paths: list[Path]) -> tuple[list[tuple[Attachment, int]], list[str]]:
    """Blocking (a worker thread): each file as an attachment with its token count, and what went wrong."""
    limit = session.settings.max_attachment_bytes
    done: list[tuple[Attachment, int]] = []
    problems: list[str] = []
    for path in paths:
        try:
            size = path.stat().st_size
            if size > limit:
                problems.append(f"{path.name} is {human_size(size)}, over max_attachment_bytes ({human_size(limit)})")
                continue
            # a named pipe would wait for a writer, and the app with it: regular files only
            attachment = read_attachment(path.name, read_regular(path, limit, what=path.name), limit)
        except OSError as error:
            problems.append(f"cannot read {path}: {error.strerror or error}")
            continue
        except FoldchatError as error:
            problems.append(str(error))
            continue
        done.append((attachment, 0 if attachment.is_image else session.counter().count_text(attachment.text)))
    return done, problems


def take_out_last(conversation: Sender) -> None:
    """Backspace in the empty composer: the last attachment out, said by its name (held down, it empties
    the tray one by one), and Ctrl+Z in the composer puts it back."""
    tray = conversation.tray
    removed = tray.remove_last()
    if removed is not None:
        conversation.composer.took_away(lambda: tray.add(*removed))
        conversation.notify(f"removed {removed[0].name} from this message · Ctrl+Z brings it back", markup=False)


async def attach(conversation: Sender, paths: list[Path]) -> list[str]:
    """Read, check and count `paths`, put what can be attached in the tray, and say what happened; what
    could not be attached is returned (one line each)."""
    session = conversation.backend
    if session is None:
        conversation.notify("Still starting: attach again in a moment")
        return ["still starting"]
    done, problems = await off_loop(read_files, session, paths)
    tray = conversation.tray
    transcript = await off_loop(lambda: [m.message for m in session.context.transcript()])
    for attachment, tokens in done:
        tray.add(attachment, tokens)
        if (number := changed_since(transcript, attachment)) is not None:
            conversation.notify(f"{attachment.name} changed since it was attached in message #{number}: this is "
                                "the new version", title="Changed file")  # fmt: skip
    for problem in problems[:SHOWN_PROBLEMS]:
        conversation.notify(problem, title="Not attached", severity="warning")  # shown literally: the app's notify
    if done:
        shown = ", ".join(a.name for a, _ in done[:5]) + ("…" if len(done) > 5 else "")
        conversation.notify(f"Attached {shown}: sent with your next message (Backspace in an empty composer removes)")
    return problems


async def slash_attach(screen: ChatHost, arg: str) -> None:
    """/attach PATH|GLOB: files to send with the next message (a folder: its files)."""
    conversation = screen.conversation
    if not arg:
        conversation.notify("Usage: /attach PATH (a file, a glob such as src/*.py, or a folder)", severity="warning")
        return
    paths = expand(arg)
    if not paths:
        conversation.notify(f"Nothing matches {arg}", severity="warning")
        return
    await attach(conversation, paths)


def at_paths(text: str) -> list[Path]:
    """The files the `@path` words of a message name (a folder: its files, as /attach takes them); an e-mail
    address or `@user` names none."""
    found: list[Path] = []
    for word in text.split():
        path = _existing(word[1:].rstrip(".,;:!?)")) if word.startswith("@") else None
        if path is not None:
            found += expand(str(path))
    return list(dict.fromkeys(found))


def completions(prefix: str) -> list[str]:
    """Paths starting with `prefix` (folders end with "/"), for Tab after `@`."""
    try:
        base = str(Path(prefix).expanduser()) if prefix.startswith("~") else prefix
        matches = sorted(glob.glob(glob.escape(base) + "*"))[:COMPLETIONS]
        return [m + "/" if Path(m).is_dir() else m for m in matches]
    except (OSError, RuntimeError, ValueError):
        return []


def common_start(texts: list[str]) -> str:
    """The longest start all of `texts` share, character by character (what Tab can fill in)."""
    common = texts[0] if texts else ""
    for text in texts[1:]:
        while not text.startswith(common):
            common = common[:-1]
    return common


def pasted_path(text: str) -> Path | None:
    """A paste that is just the path of an existing file (quoted or not): an offer to attach it."""
    line = text.strip().strip("'\"")
    if not line or "\n" in line or len(line) > 4096:
        return None
    path = _existing(line)
    return path if path is not None and path.is_file() else None


async def attachments_for(conversation: Sender, text: str) -> list[Attachment] | None:
    """What a message attaches (the tray, and its `@path` words), or None when it cannot be sent: an image
    for a model that takes none (the user removes it, one key, or switches model)."""
    tray = conversation.tray
    # most messages name no file: no trip to a thread for them
    if "@" in text and (found := await off_loop(at_paths, text)) and conversation.backend is not None:
        problems = await attach(conversation, [p for p in found if p.name not in {a.name for a in tray.attachments}])
        if problems and _told_unattached.get(conversation) != text:  # said once: the next Enter sends it as it is
            _told_unattached[conversation] = text
            conversation.composer.text = text
            conversation.notify("The message is back in the composer: Enter sends it without what was not attached",
                                title="Not sent", severity="warning", timeout=15)  # fmt: skip
            return None
    attachments = tray.take()
    images = [a.name for a in attachments if a.is_image]
    session = conversation.backend
    if images and session is not None and not await off_loop(takes_images, session.target):
        keep(conversation, attachments)
        conversation.composer.text = text
        conversation.notify(f"{session.target.name} takes no images: {', '.join(images)} not sent. Backspace in an "
                            "empty composer removes the last attachment; /model picks another model.",
                            title="Not sent", severity="warning", timeout=15)  # fmt: skip
        return None
    if attachments and session is None:
        keep(conversation, attachments)
        conversation.notify("Still starting: send the attachments in a moment")
        return None
    limit = session.settings.max_input_bytes if session is not None else 0
    if attachments and len(text.encode()) + sum(a.size for a in attachments) > limit:
        keep(conversation, attachments)
        conversation.composer.text = text
        conversation.notify(f"The message with its attachments is over {human_size(limit)} (max_input_bytes in "
                            "config.toml): not sent. Backspace in an empty composer removes the last attachment.",
                            title="Too big to send", severity="warning", timeout=15)  # fmt: skip
        return None
    return attachments


def keep(conversation: Sender, attachments: list[Attachment]) -> None:
    """Attachments of a message not sent go back to the tray."""
    tray = conversation.tray
    for attachment in attachments:
        tray.add(attachment, 0 if attachment.is_image else tray.counted.get(attachment.sha256, 0))


async def offer_pasted(conversation: Sender, text: str) -> None:
    """A pasted path of an existing file is attached (Backspace in an empty composer takes it out)."""
    path = await off_loop(pasted_path, text)
    if path is not None and conversation.backend is not None:
        await attach(conversation, [path])


async def complete_path(conversation: Sender, word: str) -> None:
    """Tab after `@word`: the path completed when one matches, as far as all agree when several do."""
    found = await off_loop(completions, word)
    composer = conversation.composer
    common = common_start(found)
    if len(common) > len(word):
        composer.complete_word("@" + word, "@" + common)
    if len(found) > 1:
        conversation.notify("  ".join(found[:12]) + (" …" if len(found) > 12 else ""), title="Paths")
    elif not found:
        conversation.notify(f"No file starts with {word}", severity="warning")
