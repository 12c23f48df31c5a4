"""Bad input and broken surroundings from the shell: usage errors exit 2 naming the input, runtime errors
exit 1, always one line, never an "internal error", and nothing half-stored."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cli.in_process import foldchat_main


def run(*args: str, env: dict[str, str], stdin: str | bytes = "") -> subprocess.CompletedProcess[str]:
    """The command's exit status and output, run in this process: what it makes of its input is the point."""
    return foldchat_main(*args, env=env, stdin=stdin)


def run_in_a_process(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m foldchat ARGS`, for what must not hang: the timeout ends a process, not a test run."""
    done = subprocess.run([sys.executable, "-m", "foldchat", *args], capture_output=True, timeout=120, env=env)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def one_line(done: subprocess.CompletedProcess[str]) -> bool:
    return done.stderr.count("\n") == 1 and "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FOLDCHAT_") and not k.endswith("_API_KEY")}
    return {**clean, "FOLDCHAT_DATABASE": str(tmp_path / "db.sqlite"), "FOLDCHAT_CONFIG": os.devnull,
            "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip


def conversation_count(tmp_path: Path) -> int:
    if not (tmp_path / "db.sqlite").exists():
        return 0
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0])


DEEP = "[" * 5000 + "]" * 5000
HUGE_INT = "[" + "9" * 5000 + "]"
CHATGPT_CYCLE = [{"title": "loop", "current_node": "b", "mapping": {
    "a": {"parent": "b", "message": {"author": {"role": "user"}, "content": {"parts": ["first"]}}},
    "b": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["second"]}}},
}}]  # fmt: skip
CHATGPT_NULLS = [{"title": None, "current_node": "c", "mapping": {
    "a": {"parent": None, "message": None},
    "b": {"parent": "a", "message": {"author": None, "content": "not an object"}},
    "c": {"parent": "b", "message": {"author": {"role": "user"}, "content": {"parts": [None, "kept", 3]}}},
    "d": None,
}}]  # fmt: skip


@pytest.mark.parametrize(("stdin", "message"), [
    (DEEP, "nested too deeply"),
    (HUGE_INT, "not usable JSON"),
    (json.dumps([{"title": "no mapping", "current_node": "a"}]), "conversation 1 of the ChatGPT export has no 'mapping'"),
    (json.dumps([{"mapping": {}}, "not a conversation"]), "conversation 2 of the ChatGPT export is not an object"),
    (b"[\xff\xfe]", "stdin is not UTF-8"),
])  # fmt: skip
def test_malformed_imports_are_usage_errors_that_store_nothing(tmp_path, env, stdin, message):
    done = run("import", "-", stdin=stdin, env=env)
    assert done.returncode == 2 and message in done.stderr and one_line(done), done.stderr
    assert conversation_count(tmp_path) == 0


@pytest.mark.parametrize(("export", "texts"), [(CHATGPT_CYCLE, ["first", "second"]), (CHATGPT_NULLS, ["kept"])])
def test_odd_chatgpt_exports_import_what_they_hold(tmp_path, env, export, texts):
    done = run("import", "-", stdin=json.dumps(export), env=env)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        stored = [json.loads(p)["content"] for (p,) in db.execute("SELECT payload FROM messages ORDER BY id")]
    assert stored == texts


def test_a_bad_message_imports_nothing_and_the_retry_does_not_duplicate(tmp_path, env):
    good = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}]
    bad = [*good, {"role": "robot", "content": "three"}]
    assert run("import", "-", stdin=json.dumps(bad), env=env).returncode == 2
    assert conversation_count(tmp_path) == 0
    assert run("import", "-", stdin=json.dumps(good), env=env).returncode == 0
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 2


def test_a_second_chatgpt_conversation_that_is_bad_stores_neither(tmp_path, env):
    export = [CHATGPT_CYCLE[0], {"title": "broken", "current_node": "x"}]
    done = run("import", "-", stdin=json.dumps(export), env=env)
    assert done.returncode == 2 and "conversation 2" in done.stderr
    assert conversation_count(tmp_path) == 0


def test_inputs_above_the_cap_are_refused_without_reading_them_whole(tmp_path, env):
    env = {**env, "FOLDCHAT_MAX_INPUT_BYTES": "1000", "FOLDCHAT_MAX_IMPORT_BYTES": "1000"}
    big = tmp_path / "big.json"
    big.write_text(json.dumps([{"role": "user", "content": "x" * 2000}]))
    cases = {("import", str(big)): "max_import_bytes", ("compress", str(big), "--model", "gpt-4o"): "max_input_bytes"}
    for args, setting in cases.items():
        done = run(*args, env=env)
        assert done.returncode == 2 and "larger than 1,000 bytes" in done.stderr and one_line(done), done.stderr
        assert f"the limit is {setting} in config.toml" in done.stderr
    assert conversation_count(tmp_path) == 0


def test_pipes_and_devices_are_refused_in_one_line_without_waiting(tmp_path, env):
    """Opening a named pipe waits for a writer and /dev/zero never ends: only regular files are read."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    zero_config = tmp_path / "config.toml"
    zero_config.symlink_to("/dev/zero")
    cases = [
        (("ask", "hi", "-f", str(pipe), "--model", "gpt-4o"), env, "is a named pipe: only regular files are read"),
        (("import", str(pipe)), env, "is a named pipe"),
        (("import", "/dev/zero"), env, "/dev/zero is a device"),
        (("compress", str(pipe), "--model", "gpt-4o"), env, "is a named pipe"),
        (("list",), {**env, "FOLDCHAT_CONFIG": str(pipe)}, "config file"),
        (("list",), {**env, "FOLDCHAT_CONFIG": str(zero_config)}, "is a device"),
    ]
    for args, environment, message in cases:
        done = run_in_a_process(*args, env=environment)  # the timeout is the hang this guards against
        assert done.returncode == 2 and message in done.stderr and one_line(done), (args, done.stderr)
    assert conversation_count(tmp_path) == 0


@pytest.mark.parametrize("args", [("show", "99999999999999999999"), ("export", "99999999999999999999"),
                                  ("ask", "hi", "--conversation", "99999999999999999999"), ("show", "0")])  # fmt: skip
def test_ids_out_of_range_are_usage_errors(env, args):
    done = run(*args, env=env)
    assert done.returncode == 2 and "no such id" in done.stderr and one_line(done), done.stderr


def test_config_problems_name_their_source(tmp_path, env):
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('default_model = "caf\xe9"\n'.encode("latin-1"))
    cases = [
        ({"FOLDCHAT_CONFIG": str(latin1)}, f"{latin1}: not UTF-8 text"),
        ({"FOLDCHAT_FOLD": "{not json"}, "FOLDCHAT_FOLD is not valid"),
        ({"FOLDCHAT_FOLD__TRIGGER_RATIO": "2"}, "FOLDCHAT_FOLD__TRIGGER_RATIO: fold.trigger_ratio"),
        ({"FOLDCHAT_CONFIG": str(tmp_path / "missing.toml")}, "missing.toml (named by FOLDCHAT_CONFIG) does not exist"),
    ]
    for extra, message in cases:
        done = run("list", env={**env, **extra})
        assert done.returncode == 2 and message in done.stderr and one_line(done), (extra, done.stderr)
        assert os.devnull not in done.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"FOLDCHAT_FOLD": '{"a":' * 3000 + "1" + "}" * 3000}, "FOLDCHAT_FOLD is not valid: nested too deeply"),
        ({"FOLDCHAT_MAX_INPUT_BYTES": "1" + "0" * 23}, "FOLDCHAT_MAX_INPUT_BYTES: max_input_bytes"),
        ({"FOLDCHAT_LOCAL__CONTEXT_SIZE": "1" + "0" * 20}, "FOLDCHAT_LOCAL__CONTEXT_SIZE: local.context_size"),
        ({"FOLDCHAT_LOCAL__CONTEXT_SIZE": "10000"}, "more than smollm2 was trained on (8,192 tokens)"),
        ({"FOLDCHAT_REQUEST_TIMEOUT": "inf"}, "request_timeout: Input should be a finite number"),
        ({"FOLDCHAT_FOLD__RESERVED_OUTPUT": "9" * 30}, "fold.reserved_output"),
    ],
)
def test_settings_out_of_what_the_machine_can_take_are_one_line_errors(tmp_path, env, extra, message):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    done = run("compress", str(chat), "--model", "gpt-4o", env={**env, **extra})
    assert done.returncode == 2 and message in done.stderr and one_line(done), done.stderr


def test_a_lone_surrogate_in_json_input_is_a_replacement_character(tmp_path, env):
    chat = tmp_path / "chat.json"
    chat.write_text('[{"role": "user", "content": "caf\\ud800e"}, {"role": "assistant", "content": "\\udc00"}]')
    done = run("compress", str(chat), "--model", "gpt-4o", "--force", env=env)
    assert done.returncode == 0, done.stderr
    contents = [message["content"] for message in json.loads(done.stdout)["messages"]]
    assert contents == ["caf\ufffde", "\ufffd"]
    imported = run("import", str(chat), env=env)
    assert imported.returncode == 0 and conversation_count(tmp_path) == 1, imported.stderr


def test_list_search_says_when_nothing_matches(env):
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "hello there"}]), env=env).returncode == 0
    found = run("list", "--search", "role", env=env)
    assert found.stdout == "" and "no conversation matches 'role'" in found.stderr
    assert "hello there" in run("list", "--search", "there", env=env).stdout


def test_list_reads_while_another_process_holds_the_write_lock(tmp_path, env):
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "visible"}]), env=env).returncode == 0
    writer = sqlite3.connect(tmp_path / "db.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE conversations SET title = 'in flight'")
    try:
        done = run("list", env=env)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert done.returncode == 0 and "visible" in done.stdout, done.stderr


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Really read-only, even for root (which ignores permission bits): the immutable attribute."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o600)


def test_a_read_only_database_is_a_one_line_runtime_error(tmp_path, env):
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "a"}]), env=env).returncode == 0
    with read_only(tmp_path / "db.sqlite"):
        done = run("import", "-", stdin=json.dumps([{"role": "user", "content": "b"}]), env=env)
    assert done.returncode == 1 and "readonly" in done.stderr and one_line(done), done.stderr
    assert conversation_count(tmp_path) == 1


def test_a_data_dir_that_cannot_be_created_is_a_one_line_runtime_error(tmp_path, env):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    env = {**env, "XDG_DATA_HOME": str(blocker)}
    del env["FOLDCHAT_DATABASE"]
    done = run("list", env=env)
    assert done.returncode == 1 and "cannot create the directory" in done.stderr and one_line(done), done.stderr


def test_export_save_writes_a_new_private_file_and_prints_its_path(tmp_path, env):
    assert run("import", "-", stdin=json.dumps([{"role": "user", "content": "to keep"}]), env=env).returncode == 0
    first = run("export", "1", "--save", env=env)
    second = run("export", "1", "--save", env=env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr
    paths = [Path(first.stdout.strip()), Path(second.stdout.strip())]
    assert paths[0] != paths[1] and all("to keep" in p.read_text() for p in paths)
    assert paths[0].parent == tmp_path / "data" / "foldchat" / "exports"
    blocked = run("export", "1", "--save", str(tmp_path / "db.sqlite"), env=env)
    assert blocked.returncode == 1 and "cannot write the export" in blocked.stderr and one_line(blocked)


def test_compress_with_the_llm_summarizer_and_no_key_names_the_key(env):
    history = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    done = run("compress", "-", "--model", "gpt-4o", "--summarizer", "llm", stdin=history, env=env)
    assert done.returncode == 2 and "OPENAI_API_KEY" in done.stderr and one_line(done), done.stderr
