"""What went wrong with a model call, in one line a user can act on, and whether to try again.

litellm wraps most transport faults in exceptions that all say "500" or "Connection error", so the
cause is read from the exception chain (httpx, the socket, the JSON decoder): a refused connection,
a connection dropped mid-reply, a stream that is not valid JSON, a stall, an unanswered request.
A rejected key names the variable that holds it.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..lazy import load_litellm
from ..local.stream import LocalHTTPError

if TYPE_CHECKING:
    from .target import ModelTarget


@dataclass(frozen=True)
class Problem:
    message: str
    retryable: bool
    retry_after: float | None = None


def backoff(attempt: int) -> float:
    delay: float = min(8.0, 0.5 * 2**attempt) * (0.8 + 0.4 * random.random())
    return delay


def retry_after(error: BaseException) -> float | None:
    """The server's Retry-After (seconds, capped at 60), if it sent one."""
    for source in (getattr(error, "response", None), error):
        headers = getattr(source, "headers", None) or getattr(source, "litellm_response_headers", None)
        if headers is None:
            continue
        try:
            value = headers.get("retry-after")
        except AttributeError:
            continue
        if value is not None:
            try:
                return max(0.0, min(60.0, float(value)))
            except ValueError:
                return None
    return None


def key_variable(target: ModelTarget) -> str:
    """The environment variable that holds (or should hold) `target`'s API key.

    The configured `api_key_env` first; else a variable of the provider that is set (litellm reads
    `<PROVIDER>_API_KEY`, and a few providers a `_TOKEN`); else the one litellm says is missing.
    """
    if target.api_key_env:
        return target.api_key_env
    prefix = target.provider.upper().replace("-", "_") + "_"
    present = sorted(k for k in os.environ if k.startswith(prefix) and k.endswith(("_KEY", "_TOKEN")))
    if present:
        return prefix + "API_KEY" if prefix + "API_KEY" in present else present[0]
    try:
        missing = load_litellm().validate_environment(model=target.litellm_model).get("missing_keys") or []
    except Exception:
        missing = []
    return str(missing[0]) if missing else prefix + "API_KEY"


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo += [current.__cause__, current.__context__, getattr(current, "original_exception", None)]


def _words(error: BaseException) -> str:
    return " ".join(f"{type(e).__name__} {e}" for e in _chain(error)).lower()


_CLASS_PREFIX = re.compile(r"^(?:[A-Za-z]+(?:Error|Exception)(?: - |: ))+")


def _short(error: BaseException) -> str:
    text = str(getattr(error, "message", None) or error)
    for prefix in ("litellm.", "OpenAIException - ", "AnthropicException - "):
        text = text.replace(prefix, "")
    line = _CLASS_PREFIX.sub("", " ".join(text.split()))  # litellm repeats its class names in front
    return line[:240] + ("…" if len(line) > 240 else "")


def _endpoint(target: ModelTarget) -> str:
    return target.api_base or "the provider"


_DROPPED = (
    "incomplete chunked read", "peer closed connection", "remoteprotocolerror", "payload is not completed",
    "serverdisconnectederror", "server disconnected", "connection closed", "incompleteread", "remotedisconnected",
)  # fmt: skip


def transport_problem(
    error: BaseException, target: ModelTarget, *, wait: float | None, started: bool
) -> Problem | None:
    """The transport fault under `error`, said plainly; None when it is not a transport fault."""
    name = target.name
    chain = list(_chain(error))
    words = _words(error)
    seconds = f" {wait:.0f} s" if wait is not None else ""
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "connection refused" in words:
        return Problem(f"{name}: cannot connect to {_endpoint(target)}: connection refused", True)
    if any(isinstance(e, json.JSONDecodeError) for e in chain) or "jsondecodeerror" in words:
        return Problem(f"{name}: the server sent a malformed stream (not valid JSON)", True)
    if any(sign in words for sign in _DROPPED):
        where = "in the middle of the reply" if started else "before replying"
        return Problem(f"{name}: the server closed the connection {where}", True)
    if "readtimeout" in words or any(isinstance(e, TimeoutError) for e in chain) or "timed out" in words:
        if started:
            return Problem(f"{name}: the stream stalled: no data for{seconds}", True)
        return Problem(f"{name}: no answer within the timeout ({wait:.0f} s)" if wait else f"{name}: no answer", True)
    if "name or service not known" in words or "nodename nor servname" in words or "getaddrinfo" in words:
        return Problem(f"{name}: cannot resolve the host of {_endpoint(target)}", True)
    if "connecterror" in words or "connection reset" in words or "broken pipe" in words:
        return Problem(f"{name}: cannot connect to {_endpoint(target)} ({_short(error)})", True)
    return None


def classify(
    error: BaseException,
    target: ModelTarget,
    *,
    wait: float | None = None,
    deadline: float | None = None,
    started: bool = False,
) -> Problem:
    """What went wrong, in one actionable line, and whether trying again may help.

    litellm's exception classes are consulted only when litellm is loaded: an error can only be one
    of them if it came through litellm, and a process talking to the local model never imports it.
    """
    from .events import EmptyReply, StreamEndedEarly

    litellm = sys.modules.get("litellm")
    name = target.name
    if isinstance(error, StreamEndedEarly):
        return _ended(name, started)
    if isinstance(error, EmptyReply):
        return Problem(f"{name}: the model sent an empty reply", False)
    if _REPEATING in _words(error):  # inside the "stream ended early" wrapper litellm 1.110 puts around it
        return _repeating(name, litellm)
    ours = isinstance(error, TimeoutError) and not (litellm is not None and isinstance(error, litellm.Timeout))
    if ours and deadline is not None:
        return Problem(f"{name}: no answer within {deadline:.0f} s (request_deadline)", False)
    rejected = _rejection(error, target, litellm)
    if rejected is not None:
        return rejected
    transport = transport_problem(error, target, wait=wait, started=started)
    if transport is not None:  # what broke the stream, when litellm's wrapper says what it broke
        return transport
    if _ended_early(error):
        return _ended(name, started)
    if litellm is not None and isinstance(error, litellm.Timeout):
        return Problem(f"{name}: no answer within the timeout", True)
    status = _http_status(error)
    if status is not None and status >= 500:
        return Problem(f"{name}: server error {status}", True)
    return _fault(error, target, litellm)


# What a stream that stopped without a finish reason is called, whatever class and status wrap it: litellm
# 1.110 raises `MidStreamFallbackError` ("Stream ended before a finish_reason was received", a 503)
_ENDED_EARLY_SIGNS = ("before a finish_reason", "without a finish_reason", "midstreamfallbackerror")


# litellm's own guard against a model caught in a loop: it stops a stream whose text chunk repeats
# REPEATED_STREAMING_CHUNK_LIMIT times in a row (100 unless its environment says otherwise)
_REPEATING = "the model is repeating the same chunk"


def _repeating(name: str, litellm: Any) -> Problem:
    """Not retried: the same request tends to loop the same way, and each try is paid for."""
    limit = getattr(litellm, "REPEATED_STREAMING_CHUNK_LIMIT", None)
    times = f" {limit} times" if isinstance(limit, int) else " many times"
    return Problem(f"{name}: the model repeated the same chunk{times}; litellm stopped the stream", False)


def _ended(name: str, started: bool) -> Problem:
    where = "before the model finished its reply" if started else "before the reply began"
    return Problem(f"{name}: the stream ended {where} (no finish reason)", True)


def _ended_early(error: BaseException) -> bool:
    """Whether `error` says the stream ended before the model finished (classified by what happened)."""
    words = _words(error)
    return any(sign in words for sign in _ENDED_EARLY_SIGNS)


def _rejection(error: BaseException, target: ModelTarget, litellm: Any) -> Problem | None:
    """A request the server refused (key, model, size, rate, content): never worth an immediate retry,
    except a rate limit after its Retry-After."""
    if isinstance(error, LocalHTTPError):
        return _status_rejection(error, target)
    if litellm is None:
        return None
    name = target.name
    if isinstance(error, litellm.AuthenticationError):
        return Problem(f"{name}: authentication failed: check {key_variable(target)} (the key was rejected)", False)
    if isinstance(error, litellm.NotFoundError):
        return Problem(f"model {target.litellm_model} does not exist for provider {target.provider}", False)
    if isinstance(error, litellm.ContextWindowExceededError):
        return Problem(f"{name}: {TOO_BIG}", False)
    if isinstance(error, litellm.RateLimitError):
        return Problem(f"{name}: rate limited (429)", True, retry_after(error))
    if isinstance(error, litellm.BadRequestError | litellm.UnprocessableEntityError | litellm.PermissionDeniedError):
        return Problem(f"{name}: request rejected: {_short(error)}", False)
    return None


TOO_BIG = "the conversation is larger than the model's window; /resummarize folds it"
_CONTEXT_SIGNS = (
    "context_length_exceeded", "maximum context length", "exceed context window",
    "exceed_context_size_error", "exceeds the available context size",  # llama.cpp's own server
)  # fmt: skip


def _status_rejection(error: LocalHTTPError, target: ModelTarget) -> Problem | None:
    """The same lines as litellm's exception classes give, read from the local server's status."""
    name, status = target.name, error.status_code
    if status in (401, 403):
        return Problem(f"{name}: authentication failed: the local model server rejected this session's key", False)
    if status == 404:
        return Problem(f"model {target.litellm_model} does not exist for provider {target.provider}", False)
    if status == 429:
        return Problem(f"{name}: rate limited (429)", True, retry_after(error))
    if status in (400, 413, 422):
        said = f"{error.code or ''} {error.message}".lower()
        if any(sign in said for sign in _CONTEXT_SIGNS):
            return Problem(f"{name}: {TOO_BIG}", False)
        return Problem(f"{name}: request rejected: {_short(error)}", False)
    return None


def _fault(error: BaseException, target: ModelTarget, litellm: Any) -> Problem:
    """A fault of the connection or the server that `classify` has not named yet."""
    name = target.name
    if litellm is not None and isinstance(error, litellm.APIConnectionError):
        return Problem(f"{name}: connection failed ({_short(error)})", True)
    if litellm is not None and isinstance(
        error, litellm.InternalServerError | litellm.ServiceUnavailableError | litellm.BadGatewayError
    ):
        return Problem(f"{name}: server error: {_short(error)}", True)
    if isinstance(error, ConnectionError | OSError):
        return Problem(f"{name}: connection failed ({error})", True)
    if litellm is not None and isinstance(error, litellm.APIError):
        return Problem(f"{name}: {_short(error)}", True)
    return Problem(f"{name}: {type(error).__name__}: {_short(error)}", False)


def _http_status(error: BaseException) -> int | None:
    """The status the server really answered with, not the 500 litellm gives faults of its own."""
    response: Any = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):
        return status
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None
