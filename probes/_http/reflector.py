"""The reference HTTP reflector: serve it, run it in a subprocess, survey it.

``serve(host, port)`` runs the Starlette app of :mod:`probes._http.app` under uvicorn
(HTTP/1.1 over h11) and prints ``http reflector listening on URL`` once the socket
listens. ``http_reflector()`` starts that server as a subprocess (``python -m
probes._http --port 0``: no thread competing with the tests for the GIL),
yields an :class:`HttpReflector` with its ``url`` and stops it on exit.
``builtin_targets()`` lists the chains ``fidelity survey`` runs against it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import TargetError
from fidelity._core.extras import install_hint
from probes._process import stop_process
from probes._target import BuiltinTarget

if TYPE_CHECKING:
    from probes._http.probe import HttpProbe

__all__ = ["HttpReflector", "builtin_targets", "http_reflector", "serve"]

_BANNER = "http reflector listening on "
_START_TIMEOUT = 20.0


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the reflector on ``host:port`` until interrupted (``port=0``: OS-assigned).

    Prints ``http reflector listening on URL`` (flushed) once the socket listens. The
    loopback-only check is the caller's (the CLI's ``--allow-remote``).
    """
    import uvicorn

    from probes._http.app import app

    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections
        # only then, and without it every response waits out a delayed ACK (~40 ms).
        sock = socket.socket(info[0], socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(info[4])
        sock.listen(128)
    except OSError as exc:
        raise TargetError(f"cannot listen on {host}:{port} ({exc.strerror or exc}).") from None
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        http="h11",
        lifespan="off",
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=2,
        h11_max_incomplete_event_size=64 * 1024,
    )
    print(f"{_BANNER}{_url(host, bound_port)}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpReflector:
    """A running reflector: ``url`` is its base URL (ends with ``/``).

    Any path under ``url`` reflects; ``emit_url`` answers with a given armored value.
    """

    url: str
    pid: int

    @property
    def emit_url(self) -> str:
        """The endpoint that emits an armored value (response path alone)."""
        return self.url + "_fidelity/emit"


def _read_banner(proc: subprocess.Popen[bytes], deadline: float) -> str:
    """Read the first stdout line of ``proc`` within the deadline ('' if none)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    line = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in line and len(line) < 4096:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            line += chunk
    return line.split(b"\n", 1)[0].decode("utf-8", "replace")


@contextlib.contextmanager
def http_reflector(*, timeout: float = _START_TIMEOUT) -> Iterator[HttpReflector]:
    """Start the reflector in a subprocess on a free loopback port; stop it on exit.

    Raises ``TargetError`` (with the server's last words) when it does not come up
    within ``timeout`` seconds.
    """
    # -P and no PYTHONPATH: neither the current directory nor the user's paths come
    # first on sys.path, so a repository's own ``probes`` cannot stand in for ours.
    command = [sys.executable, "-P", "-m", "probes._http", "--port", "0"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONUNBUFFERED"] = "1"
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, env=env
        )
        try:
            banner = _read_banner(proc, time.monotonic() + timeout)
            if not banner.startswith(_BANNER):
                stop_process(proc)
                errors.seek(max(0, errors.seek(0, os.SEEK_END) - 500))
                tail = errors.read(500).decode("utf-8", "replace").strip()
                from fidelity._core.render import safe

                raise TargetError(
                    f"the http reflector did not start within {timeout:g}s"
                    + (f" ({safe(tail.splitlines()[-1])})" if tail else "")
                    + "."
                )
            yield HttpReflector(url=banner[len(_BANNER) :].strip(), pid=proc.pid)
        finally:
            stop_process(proc)


# --- built-in survey targets ----------------------------------------------------------


class _Shared:
    """One reflector subprocess shared by every open built-in target (refcounted)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.stack: contextlib.ExitStack | None = None
        self.reflector: HttpReflector | None = None

    def acquire(self) -> HttpReflector:
        with self.lock:
            if self.reflector is None:
                stack = contextlib.ExitStack()
                self.reflector = stack.enter_context(http_reflector())
                self.stack = stack
            self.users += 1
            return self.reflector

    def release(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users == 0 and self.stack is not None:
                stack, self.stack, self.reflector = self.stack, None, None
                stack.close()


_SHARED = _Shared()

# name, description, probe options
_TARGETS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "http json",
        "a string field of a JSON request body, echoed in a JSON response (httpx -> uvicorn "
        "-> Starlette and back)",
        {"send": "json:text", "read": "json:text"},
    ),
    (
        "http form",
        "an application/x-www-form-urlencoded field",
        {"send": "form:text", "read": "json:text"},
    ),
    (
        "http multipart",
        "a multipart/form-data field",
        {"send": "multipart:text", "read": "json:text"},
    ),
    (
        "http multipart filename",
        "the filename of a multipart/form-data file field",
        {"send": "filename:file", "read": "json:text"},
    ),
    (
        "http query",
        "a query-string parameter encoded by httpx",
        {"send": "query:text", "read": "json:text"},
    ),
    (
        "http path",
        "one percent-encoded path segment",
        {"send": "path", "read": "json:text", "path": "reflect/{value}"},
    ),
    (
        "http header",
        "a request header value, and a response header read back by httpx",
        {"send": "header:x-fidelity-text", "read": "header:x-fidelity-text"},
    ),
    (
        "http text/plain",
        "a text/plain body; the response declares charset=utf-8",
        {"send": "body", "read": "body"},
    ),
    (
        "http text/plain no charset",
        "a text/plain response without a charset, decoded by httpx's default (UTF-8)",
        {"send": "body", "read": "body", "emit_charset": None},
    ),
    (
        "http text/plain no charset latin-1",
        "a text/plain response without a charset, decoded as latin-1 like a client that "
        "follows the HTTP/1.1 default",
        {"send": "body", "read": "body", "emit_charset": None, "default_encoding": "latin-1"},
    ),
)


def _opener(options: dict[str, Any]) -> Any:
    @contextlib.contextmanager
    def open_target() -> Iterator[HttpProbe]:
        from probes._http.probe import http

        reflector = _SHARED.acquire()
        try:
            opts = dict(options)
            url = reflector.url + opts.pop("path", "reflect")
            with http(url, reflector=True, **opts) as probe:
                yield probe
        finally:
            _SHARED.release()

    return open_target


def builtin_targets() -> tuple[BuiltinTarget, ...]:
    """The HTTP chains ``fidelity survey`` runs against a local reflector subprocess.

    Each target's ``open()`` starts (or shares) one reflector and yields an
    :class:`~probes.HttpProbe`; all are unavailable, with the reason, when Starlette or
    uvicorn is missing.
    """
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    reason = (
        f"{' and '.join(missing)} not installed ({install_hint('reflector')})." if missing else ""
    )
    return tuple(
        BuiltinTarget(name=name, description=description, open=_opener(opts), unavailable=reason)
        for name, description, opts in _TARGETS
    )
