"""The reference MCP reflector: an MCP server that reports exactly what it received.

Three tools, so the request path and the response path are measured apart:

``echo(text)``
    returns ``text`` as text content: the round trip.
``reflect(text)``
    returns the armored form (``fidelity._core.armor``) of what the tool function received,
    as structured content: the request path alone, since base64 and code points survive
    any response path.
``emit(value)``
    takes an armored value and returns it as text content and as structured content
    ``{"text": ...}``: the response path alone.

``serve(transport, host, port)`` runs it over stdio (nothing but protocol on stdout)
or Streamable HTTP (uvicorn on ``host``, an OS-assigned port when ``port`` is 0); in
HTTP mode the line ``mcp reflector listening on http://HOST:PORT/mcp`` goes to STDERR
once the server accepts connections. ``mcp_reflector(transport)`` gives a probe target
for it: the argv to spawn (stdio) or the URL of a reflector subprocess it starts and
stops (HTTP).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.extras import install_hint
from fidelity._core.render import safe
from probes._process import stop_process
from probes._target import BuiltinTarget

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from fidelity._probe.contract import Probe

__all__ = ["McpReflector", "build_server", "builtin_targets", "mcp_reflector", "serve"]

_LISTENING = re.compile(r"mcp reflector listening on (http://[^\s]+/mcp)")
_READY_TIMEOUT = 20.0
_ERR_TAIL = 8192


def build_server() -> MCPServer:
    """Return the reflector as an ``MCPServer`` (tools ``echo``, ``reflect``, ``emit``)."""
    from probes._mcp.reflector_server import build_server as build

    return build()


def serve(transport: str = "stdio", host: str = "127.0.0.1", port: int = 0) -> None:
    """Run the reflector until interrupted (stdio: until stdin closes).

    HTTP mode binds ``host:port`` (0 picks a free port) and prints
    ``mcp reflector listening on http://HOST:PORT/mcp`` on stderr once it accepts
    connections. Stdio mode writes nothing but protocol on stdout.
    """
    if transport == "stdio":
        _serve_stdio()
        return
    if transport != "http":
        raise UsageError(f"transport={transport!r} is not an MCP transport; use 'stdio' or 'http'.")
    _serve_http(host, port)


def _serve_stdio() -> None:
    import anyio

    from probes._mcp.reflector_server import run_stdio

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(run_stdio)


def _serve_http(host: str, port: int) -> None:
    import socket

    import anyio
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY on an accepted socket
    # only when its proto is IPPROTO_TCP, and accepted sockets inherit the listener's.
    # Without it uvicorn's separate header and body writes meet Nagle plus the
    # client's delayed ACK on a kept-alive connection: ~40 ms per reply.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"cannot bind {host}:{port} ({exc.strerror}); pick another --port."
        ) from None
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    app = build_server().streamable_http_app(host=host)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.01)
        print(f"mcp reflector listening on http://{shown}:{bound_port}/mcp", file=sys.stderr)
        sys.stderr.flush()

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(announce)
            await server.serve(sockets=[sock])
            tg.cancel_scope.cancel()

    # Ctrl-C, SIGTERM and SIGHUP (raised as KeyboardInterrupt) stop the server as
    # uvicorn does, exit 0 and nothing said, on every Python: the task group wraps them
    # in an exception group, which contextlib.suppress looks into only from 3.12 on.
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    except BaseExceptionGroup as group:
        _, rest = group.split(KeyboardInterrupt)
        if rest is not None:
            raise rest from None


def reflector_argv() -> list[str]:
    """The command that runs the Python reflector over stdio.

    ``-P`` keeps the current directory off ``sys.path``: a repository's own ``probes``
    package cannot stand in for ours.
    """
    return [sys.executable, "-P", "-m", "probes._mcp", "--transport", "stdio"]


class McpReflector:
    """A running (or spawnable) Python MCP reflector, as a probe target.

    Entering yields the target: for ``stdio`` the argv that spawns the reflector (the
    probe starts it), for ``http`` the URL of a reflector subprocess started here and
    stopped on exit (bounded wait for readiness and for the stop).
    """

    def __init__(self, transport: Literal["stdio", "http"] = "stdio") -> None:
        if transport not in ("stdio", "http"):
            raise UsageError(
                f"transport={transport!r} is not an MCP transport; use 'stdio' or 'http'."
            )
        self.transport = transport
        self.process: subprocess.Popen[bytes] | None = None
        self.target: list[str] | str | None = None
        self._stderr: list[str] = []

    def __enter__(self) -> list[str] | str:
        if self.transport == "stdio":
            self.target = reflector_argv()
            return self.target
        self.target = self._start_http()
        return self.target

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _start_http(self) -> str:
        argv = [sys.executable, "-P", "-m", "probes._mcp", "--transport", "http"]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONUNBUFFERED"] = "1"
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.process = proc
        found: list[str] = []
        ready = threading.Event()

        def pump() -> None:
            assert proc.stderr is not None
            for raw in iter(proc.stderr.readline, b""):
                line = raw[:_ERR_TAIL].decode("utf-8", "replace")
                if not found:
                    match = _LISTENING.search(line)
                    if match:
                        found.append(match.group(1))
                        ready.set()
                        continue
                self._stderr.append(line)
                del self._stderr[:-50]
            ready.set()

        threading.Thread(target=pump, name="mcp-reflector-stderr", daemon=True).start()
        deadline = time.monotonic() + _READY_TIMEOUT
        while not ready.wait(0.05):
            if time.monotonic() > deadline:
                break
        if not found:
            self.stop()
            tail = safe("".join(self._stderr).strip()[-400:]) or "no output"
            raise TargetError(
                f"the MCP reflector did not start listening within {_READY_TIMEOUT:g}s ({tail})."
            )
        return found[0]

    def stop(self) -> None:
        """Stop the reflector subprocess, if one was started (bounded wait, then kill)."""
        proc, self.process = self.process, None
        if proc is not None:
            stop_process(proc)


def mcp_reflector(transport: Literal["stdio", "http"] = "stdio") -> McpReflector:
    """Return a context manager yielding a target for the Python MCP reflector.

    ``stdio`` yields ``[sys.executable, "-P", "-m", "probes._mcp", "--transport", "stdio"]``;
    ``http`` starts the reflector on 127.0.0.1 with an OS-assigned port and yields its
    URL, stopping it on exit.
    """
    return McpReflector(transport)


def _mcp_missing() -> str:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        return f"the MCP SDK is not installed ({install_hint('mcp')})."
    return ""


def _http_missing() -> str:
    import importlib.util

    missing = _mcp_missing()
    if missing:
        return missing
    if importlib.util.find_spec("uvicorn") is None:
        return f"uvicorn is not installed ({install_hint('reflector')})."
    return ""


@contextlib.contextmanager
def _open_reflector(transport: Literal["stdio", "http"]) -> Iterator[Probe]:
    from probes._mcp.probe import mcp

    with mcp_reflector(transport) as target, mcp(target) as probe:
        yield probe


@contextlib.contextmanager
def _open_node_reflector(script: str) -> Iterator[Probe]:
    from probes._mcp.probe import mcp

    with mcp(["node", script]) as probe:
        yield probe


def builtin_targets() -> tuple[BuiltinTarget, ...]:
    """The MCP chains ``fidelity survey`` runs: the Python reflector over stdio and HTTP.

    In a source tree, the TypeScript reflector under ``tests/servers`` is listed too;
    it is marked unavailable, naming what installs it, until ``node`` is on PATH and
    ``npm ci --prefix tests/servers`` has installed its SDK.
    """
    targets = [
        BuiltinTarget(
            name="mcp.stdio",
            description="Python MCP SDK client -> Python MCP SDK server over stdio",
            open=lambda: _open_reflector("stdio"),
            unavailable=_mcp_missing(),
        ),
        BuiltinTarget(
            name="mcp.http",
            description="Python MCP SDK client -> Python MCP SDK server over Streamable HTTP",
            open=lambda: _open_reflector("http"),
            unavailable=_http_missing(),
        ),
    ]
    script, missing = _node_reflector()
    if script is not None:
        targets.append(
            BuiltinTarget(
                name="mcp.stdio.node",
                description="Python MCP SDK client -> TypeScript MCP SDK server over stdio",
                open=lambda: _open_node_reflector(script),
                unavailable=missing or _mcp_missing(),
            )
        )
    return tuple(targets)


def _node_reflector(servers: Path | None = None) -> tuple[str | None, str]:
    """The TypeScript reflector's script (``None`` outside a source tree) and what it
    still needs here, as one sentence naming the command that installs it (``""``
    when it can run). ``servers`` is the source tree's ``tests/servers``."""
    import shutil

    if servers is None:
        servers = Path(__file__).resolve().parents[2] / "tests" / "servers"
    script = servers / "mcp_reflector.mjs"
    if not script.is_file():
        return None, ""
    try:
        shown = os.path.relpath(servers)
    except ValueError:  # another drive (Windows)
        shown = str(servers)
    shown = shown if not shown.startswith("..") else str(servers)
    install = f"npm ci --prefix {shown}"
    if not shutil.which("node"):
        return str(script), (
            f"needs Node.js (node is not on PATH): install Node.js 20+, then run {install}."
        )
    sdk = servers / "node_modules" / "@modelcontextprotocol" / "sdk"
    if not sdk.is_dir():
        return str(script), f"needs the TypeScript MCP SDK, which {install} installs."
    return str(script), ""
