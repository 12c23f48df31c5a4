"""A direct streaming client for the embedded model's server, so talking to it needs no litellm.

`import litellm` costs seconds and ~170 MB; a process that only talks to the local model pays none of
it. The server speaks OpenAI's chat-completions wire format, which this module speaks too: one POST to
`{api_base}/chat/completions` with `stream: true`, then server-sent events, one JSON chunk per `data:`
line, closed by `data: [DONE]`. Chunks come out with attribute access, the shape litellm's chunks have,
so `providers.stream_reply` reads both alike: retries, deadlines, partial replies and the error
mapping (`providers/errors.py`, `classify`) are the same code for both paths.

A non-200 answer raises `LocalHTTPError` with the server's status, message and headers; transport
faults leave as the standard library's own exceptions (a refused connection, `http.client`'s
`IncompleteRead`, ...) and a read timeout as `ReadTimeout`, which `classify` reads like httpx's under
litellm.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import threading
from collections.abc import AsyncGenerator, Iterator, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from ..providers.target import ModelTarget

DONE = "[DONE]"


class LocalHTTPError(Exception):
    """The local server answered with an error status instead of a stream."""

    def __init__(self, status_code: int, message: str, code: str | None, headers: Mapping[str, str]) -> None:
        super().__init__(f"{status_code}: {message}")
        self.status_code = status_code
        self.message = message
        self.code = code
        self.headers = headers


def request_body(
    target: ModelTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """What litellm would send for `target` (model name without its `openai/` prefix, our sampling)."""
    body: dict[str, Any] = {
        "model": target.litellm_model.split("/", 1)[-1],
        # as litellm sends them: no null fields (a local server may refuse an assistant `content: null`)
        "messages": [{key: value for key, value in m.items() if value is not None} for m in messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if target.max_output_tokens:
        body["max_tokens"] = target.max_output_tokens
    if target.temperature is not None:
        body["temperature"] = target.temperature
    body.update(target.extra_body)  # e.g. repeat_penalty: litellm merges extra_body into the JSON the same way
    if tools:  # only when offered (the recall tool is never offered to the local model today)
        body["tools"] = tools
    return body


def chunk_from_json(data: str) -> Any:
    """One `data:` payload as nested objects with attribute access (a dict key `x` reads as `.x`)."""
    return json.loads(data, object_hook=lambda fields: SimpleNamespace(**fields))


def _error_of(raw: bytes) -> tuple[str, str | None]:
    """The message and code of an OpenAI-style error body, or the body itself when it is not one."""
    try:
        error = json.loads(raw).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, Mapping):
        return str(error.get("message") or ""), error.get("code") or error.get("type")
    return raw.decode("utf-8", "replace").strip()[:500], None


async def stream_chunks(
    target: ModelTarget, messages: list[dict[str, Any]], timeout: float, tools: list[dict[str, Any]] | None = None
) -> AsyncGenerator[Any, None]:
    """The chunks of one streamed reply from the local server; `timeout` bounds each wait for data."""
    if target.api_base is None:
        raise LocalHTTPError(503, "the local model server is not running", None, {})
    headers = {
        "Authorization": f"Bearer {target.api_key or 'foldchat-no-key'}",
        "Accept": "text/event-stream",
        "Content-Type": "application/json",
    }
    url = f"{target.api_base.rstrip('/')}/chat/completions"
    body = json.dumps(request_body(target, messages, tools)).encode()
    events = _EventReader(url, body, headers, timeout, asyncio.get_running_loop())
    try:
        while True:
            item = await events.queue.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        events.close()  # stopped early (cancelled, or the caller went away): the thread stops reading


def connection_to(url: str, timeout: float) -> http.client.HTTPConnection:
    """An HTTP connection to the server of `url`, not yet open. The standard library's client: no proxy is
    ever consulted (it reads no environment), so the session key stays on loopback."""
    parts = urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return connection_class(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)


def _lines(response: Any) -> Iterator[bytes]:
    """The body's lines as they arrive, without their ends (LF, CRLF or CR, as server-sent events allow).
    Read with `read1`, not line by line: http.client's `readline` takes a chunked body cut short for its
    end, where `read1` raises `IncompleteRead` (the server went away). A CRLF split between two reads
    yields one blank line more, which is a separator like any other."""
    pending = b""
    while chunk := response.read1(65536):
        lines = (pending + chunk).splitlines(keepends=True)
        pending = lines.pop() if not lines[-1].endswith((b"\n", b"\r")) else b""
        for line in lines:
            yield line.rstrip(b"\r\n")
    if pending:
        yield pending


class ReadTimeout(Exception):
    """No data from the local server for the read timeout (not the asyncio deadline's TimeoutError)."""


_END = object()


class _EventReader:
    """One request to the local server, read in a daemon thread with the standard library's HTTP client.

    The reading (HTTP chunks, lines, JSON) is off the UI's event loop, and http.client costs less than
    half of httpx's async stack per reply here (1.1 ms against 2.6 ms of CPU for a one-line local reply).
    Each parsed chunk, the end, or the error that ended the stream is handed to the loop's queue."""

    def __init__(
        self, url: str, body: bytes, headers: dict[str, str], timeout: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.connection = connection_to(url, timeout)
        self.path = urlsplit(url).path
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.loop = loop
        self.closed = False
        self.sock: socket.socket | None = None
        self.timeout = timeout
        threading.Thread(target=self._run, args=(body, headers), daemon=True, name="local-stream").start()

    def _run(self, body: bytes, headers: dict[str, str]) -> None:
        try:
            self.connection.connect()
            # kept here: a response that will close the connection takes the socket from the connection,
            # and `close` must still find it to wake this thread
            self.sock = self.connection.sock
            if self.closed:
                return
            self.connection.request("POST", self.path, body, headers)
            response = self.connection.getresponse()
            if response.status != 200:
                message, code = _error_of(response.read())
                headers = {name.lower(): value for name, value in response.headers.items()}  # read as httpx's: any case
                raise LocalHTTPError(response.status, message, code, headers)
            for line in _lines(response):
                if self.closed:
                    return
                if not line.startswith(b"data:"):
                    continue  # blank separators, comments (": ping") and event names carry no chunk
                data = line[len(b"data:") :].strip().decode()
                if data == DONE:
                    break
                self._hand_over(chunk_from_json(data))
            self._hand_over(_END)
        except TimeoutError as error:
            self._hand_over(ReadTimeout(f"no data from the local server for {self.timeout:g} s"), cause=error)
        except Exception as error:  # handed to the reader of the stream, who classifies it
            self._hand_over(error)
        finally:
            self.connection.close()

    def _hand_over(self, item: Any, cause: BaseException | None = None) -> None:
        if cause is not None:
            item.__cause__ = cause
        if not self.closed:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is reading any more
                self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def close(self) -> None:
        """Stop reading: a thread blocked on the socket wakes with an error it keeps to itself."""
        self.closed = True
        sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
