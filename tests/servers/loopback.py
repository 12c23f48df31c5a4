"""What every fake provider shares: a threaded HTTP server on 127.0.0.1 with a free port."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-stream is what several tests do on purpose


class LoopbackServer:
    """Subclasses set `path_prefix` and build their request handler in `_handler()`."""

    path_prefix = ""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[str] = []
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        # shutdown() waits for the loop's next poll: at the default 0.5 s that was half a second of every test
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.path_prefix}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_: Any) -> None:
        pass
