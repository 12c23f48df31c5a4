"""Private by default (docs/design.md §9): directories 0700, files 0600 whatever the umask; old installs tightened."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from foldchat.engine.errors import ExportError, StorageError
from foldchat.engine.export import write_export
from foldchat.engine.messages import Message
from foldchat.engine.paths import cache_dir, data_dir, private_file
from foldchat.engine.store import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_new_directories_database_wal_and_shm_are_private(usual_umask, xdg):
    store = Store(data_dir() / "foldchat.db")
    store.append(store.create_conversation(), Message.user("secret"))
    assert mode(data_dir()) == 0o700 and mode(cache_dir()) == 0o700
    files = sorted(data_dir().glob("foldchat.db*"))
    assert [f.name for f in files] == ["foldchat.db", "foldchat.db-shm", "foldchat.db-wal"]
    assert {mode(f) for f in files} == {0o600}
    store.close()


def test_an_old_world_readable_install_is_tightened_on_start(usual_umask, xdg):
    folder = xdg / "data" / "foldchat"
    folder.mkdir(parents=True, mode=0o755)
    old = Store(folder / "foldchat.db")
    old.create_conversation()
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o755)
    Store(data_dir() / "foldchat.db").close()
    assert mode(folder) == 0o700
    assert {mode(p) for p in folder.glob("foldchat.db*")} == {0o600}
    old.close()


def test_private_file_tightens_a_file_other_code_wrote(usual_umask, tmp_path):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert mode(gguf) == 0o644
    assert mode(private_file(gguf)) == 0o600
    private_file(tmp_path / "missing")  # nothing to do, no error


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "f.db")
    yield s
    s.close()


def test_exports_are_new_private_files_that_never_overwrite_or_follow_links(usual_umask, store, tmp_path):
    cid = store.create_conversation(title="trip")
    store.append(cid, Message.user("plan Rome"))
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / f"foldchat-{cid}.md").symlink_to(victim)  # planted under the name the export would take
    first = write_export(store, cid, "md", out)
    second = write_export(store, cid, "md", out)
    assert victim.read_text() == "precious"
    assert first.name == f"foldchat-{cid}-2.md" and second.name == f"foldchat-{cid}-3.md"
    assert "plan Rome" in first.read_text() and mode(first) == 0o600


def test_an_export_to_a_place_that_cannot_take_it_is_an_error(store, tmp_path):
    cid = store.create_conversation()
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(ExportError, match=str(not_a_dir)):
        write_export(store, cid, "json", not_a_dir)


def test_exports_default_to_the_private_exports_folder(usual_umask, xdg, store):
    cid = store.create_conversation()
    store.append(cid, Message.user("hello"))
    path = write_export(store, cid, "json")
    assert path.parent == data_dir() / "exports" and mode(path.parent) == 0o700


def test_exports_mark_superseded_replies_and_skip_empty_ones(store):
    from foldchat.engine.export import export_conversation

    earlier = store.create_conversation()  # database ids are shared: this conversation's #2 is not id 2
    store.append(earlier, Message.user("another conversation"))
    cid = store.create_conversation()
    store.append(cid, Message.user("question"))
    old = store.append(cid, Message.assistant("first answer"))
    store.append(cid, Message.assistant(""), status="interrupted")
    new = store.append(cid, Message.assistant("better answer"))
    store.supersede([old], new)
    md = export_conversation(store, cid, "md")
    assert "## [2] assistant [superseded by #4]\n\nfirst answer" in md  # numbers, not the ids {old} and {new}
    assert "## [1] user" in md and "## [4] assistant\n\nbetter answer" in md
    assert md.count("] assistant") == 2  # the empty interrupted reply (#3) is left out


def test_a_linked_exports_folder_is_refused_and_the_folder_it_points_to_keeps_its_permissions(
    usual_umask, home, monkeypatch
):
    """The exports folder was made 0700 by following the link: a shared folder it pointed to was closed."""
    from foldchat.engine.paths import recovery_dir

    from runtime.conftest import foldchat

    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    assert foldchat("import", "-", stdin='[{"role": "user", "content": "plan Rome"}]').returncode == 0
    shared = home / "shared"
    shared.mkdir(mode=0o755)
    (home / "data" / "foldchat").mkdir(parents=True, exist_ok=True)
    (home / "data" / "foldchat" / "exports").symlink_to(shared)
    done = foldchat("export", "1", "--save")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "symbolic link" in done.stderr and "internal error" not in done.stderr
    assert mode(shared) == 0o755 and list(shared.iterdir()) == []
    (home / "data" / "foldchat" / "unsaved").symlink_to(shared)  # where a reply the disk could not take goes
    with pytest.raises(StorageError, match="symbolic link"):
        recovery_dir()
    assert mode(shared) == 0o755
