"""The real local server started from a hostile shell: nothing there can redirect, expose or slow it.

One server is started for the module from a working directory that holds a `foldchat` folder (it
would shadow the installed package) and an environment with `HOST=0.0.0.0`, `PORT=3000`, `API_KEY`,
`CONFIG_FILE`, a provider key and proxies pointing at a closed port.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from foldchat.engine.config import LocalModelSettings
from foldchat.engine.errors import LocalModelError
from foldchat.engine.local.model import SERVED_NAME, LocalModelServer

from runtime.conftest import foldchat

PROVIDER_SECRET = "sk-provider-secret-do-not-leak"
HOSTILE = {
    "HOST": "0.0.0.0",
    "PORT": "3000",
    "API_KEY": "x",
    "CONFIG_FILE": "/nonexistent/llama.json",
    "OPENAI_API_KEY": PROVIDER_SECRET,
    "N_CTX": "64",
    "LOGITS_ALL": "true",
}
RSS_BOUND_KB = 1_500_000  # with logits for every token, ~1 MB per token: ~2.5 GB after this prompt


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    workdir = tmp_path_factory.mktemp("checkout")
    (workdir / "foldchat").mkdir()
    (workdir / "foldchat" / "__init__.py").write_text("")  # a source checkout's package folder
    proxy = f"http://127.0.0.1:{_closed_port()}"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in HOSTILE.items():
            patch.setenv(name, value)
        for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            patch.setenv(name, proxy)
        patch.delenv("no_proxy", raising=False)
        patch.delenv("NO_PROXY", raising=False)
        server = LocalModelServer(LocalModelSettings())
        with pytest.MonkeyPatch.context() as inside:
            inside.chdir(workdir)  # only while starting: other tests run `python -m foldchat` themselves
            server.start()
        yield server
        server.stop()


def _direct(request: urllib.request.Request) -> tuple[int, dict[str, str], bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=900) as response:  # a deadlock guard: 2 shared cores are slow
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket listening on `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def test_it_listens_on_loopback_only_on_our_port(hostile_server):
    assert hostile_server.port != 3000
    assert _listening_addresses(hostile_server.port) == {"0100007F"}  # 127.0.0.1, nothing else
    assert _listening_addresses(3000) == set()


def test_the_child_environment_holds_no_provider_key_and_no_server_settings(hostile_server):
    assert hostile_server.process is not None
    raw = Path(f"/proc/{hostile_server.process.pid}/environ").read_bytes()
    env = dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
    assert PROVIDER_SECRET not in raw.decode()
    assert not {"OPENAI_API_KEY", "HOST", "PORT", "CONFIG_FILE", "N_CTX", "LOGITS_ALL"} & set(env)
    assert not [name for name in env if name.lower().endswith("_proxy")]
    assert env["API_KEY"] == hostile_server.api_key != "x"  # the session key, not the shell's
    cmdline = Path(f"/proc/{hostile_server.process.pid}/cmdline").read_bytes().decode()
    assert hostile_server.api_key not in cmdline  # the command line is readable by every local user


def test_the_working_directory_cannot_shadow_the_installed_package(hostile_server):
    # started from a folder holding `foldchat/`: it ran (the fixture got an answer) and cannot see that folder.
    # An editable install maps foldchat.engine itself, so the lookup is also pinned down here: `-P` keeps
    # the working directory off sys.path, and the child works from Foldchat's cache dir.
    from foldchat.engine.paths import cache_dir

    assert hostile_server.process is not None
    pid = hostile_server.process.pid
    assert Path(f"/proc/{pid}/cwd").resolve() == cache_dir().resolve()
    assert "-P" in Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def test_requests_without_the_session_key_are_refused_and_there_is_no_cors(hostile_server):
    url = f"{hostile_server.base_url}/models"
    assert _direct(urllib.request.Request(url))[0] == 401
    assert _direct(urllib.request.Request(url, headers={"Authorization": "Bearer x"}))[0] == 401
    origin = {"Origin": "http://evil.example", "Authorization": f"Bearer {hostile_server.api_key}"}
    status, headers, body = _direct(urllib.request.Request(url, headers=origin))
    assert status == 200 and SERVED_NAME in [m["id"] for m in json.loads(body)["data"]]
    assert _no_page_may_read(headers)
    preflight = urllib.request.Request(
        url, method="OPTIONS", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert _no_page_may_read(_direct(preflight)[1])


def _no_page_may_read(headers: dict[str, str]) -> bool:
    """A browser lets a page read the answer only when the allowed origin is `*` or the page's own: the
    server names the empty origin, which no page has, and never allows credentials."""
    allowed = headers.get("access-control-allow-origin", "")
    return allowed == "" and headers.get("access-control-allow-credentials", "false") != "true"


async def test_litellm_reaches_it_with_the_session_key_despite_the_proxies(hostile_server):
    from foldchat.engine.config import Settings
    from foldchat.engine.providers.events import Finished
    from foldchat.engine.providers.registry import ModelRegistry
    from foldchat.engine.providers.stream import stream_reply

    registry = ModelRegistry(Settings(), local_server=hostile_server)
    target = registry.prepare(registry.resolve("local"))
    events = [e async for e in stream_reply(target, [{"role": "user", "content": "Say hello."}], timeout=60)]
    assert isinstance(events[-1], Finished), events[-1]


def test_server_memory_stays_bounded_after_a_long_prompt(hostile_server):
    prompt = " ".join(f"Line {n}: the river flows past the old mill." for n in range(150))  # ~2k tokens
    assert 1800 < hostile_server.count_text(prompt) < hostile_server.settings.context_size - 300
    body = json.dumps({"model": SERVED_NAME, "messages": [{"role": "user", "content": prompt}], "max_tokens": 4})
    request = urllib.request.Request(
        f"{hostile_server.base_url}/chat/completions", data=body.encode(), method="POST",
        headers={"Authorization": f"Bearer {hostile_server.api_key}", "Content-Type": "application/json"},
    )  # fmt: skip
    assert _direct(request)[0] == 200
    assert hostile_server.process is not None
    status = Path(f"/proc/{hostile_server.process.pid}/status").read_text()
    peak_kb = int(status.split("VmHWM:")[1].split()[0])
    assert peak_kb < RSS_BOUND_KB


def test_an_unknown_chat_format_is_refused_before_starting():
    server = LocalModelServer(LocalModelSettings(chat_format="no-such-format"))
    with pytest.raises(LocalModelError, match=r"local\.chat_format 'no-such-format' is not a chat format") as caught:
        server.start()
    assert server.process is None and "\n" not in str(caught.value)


@pytest.mark.parametrize("content", [b"this is not a model\n", b""])
def test_a_model_path_that_is_not_a_gguf_is_refused_before_starting(tmp_path, content):
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(content)
    server = LocalModelServer(LocalModelSettings(model_path=bogus))
    with pytest.raises(LocalModelError, match="is not a GGUF model file") as caught:
        server.start()
    assert server.process is None and "Traceback" not in str(caught.value)


def test_foldchat_ask_reports_a_bad_chat_format_in_one_line(tmp_path, monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    config = tmp_path / "config.toml"
    config.write_text('[local]\nchat_format = "no-such-format"\n')
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(config))
    monkeypatch.setenv("FOLDCHAT_DATABASE", str(tmp_path / "db.sqlite"))
    done = foldchat("ask", "hello")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "local.chat_format 'no-such-format'" in lines[0], done.stderr
