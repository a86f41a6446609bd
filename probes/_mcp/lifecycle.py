"""The sessions of one MCP probe: started, re-established, let go and closed.

:class:`Sessions` holds what a probe's sessions share (the event loop or the
TypeScript driver, the server's stderr tail, the SDK's log records) and the session
that is up. ``current()`` gives the session for the next call, starting a new one when
the last died; after three failed starts in a row it gives up for good. Every session
after the first is shown to ``on_new`` before any call goes through it (the probe lists
the tools again and checks them against its plan); a session it refuses is let go and
nothing more is called. A session that is let go has its server killed at once.
"""

from __future__ import annotations

import atexit
import os
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.extras import install_hint
from fidelity._core.kinds import Status
from fidelity._probe.observation import Direction, Observation
from probes._mcp.options import McpOptions
from probes._mcp.transport import FirstAnswer

if TYPE_CHECKING:
    from mcp import Client

    from probes._mcp.node.session import NodeSession
    from probes._mcp.node.setup import NodeClient
    from probes._mcp.session import EventLoopThread, McpSession, SdkLogSink, StderrTail

    Session = McpSession | NodeSession

__all__ = ["ListingChanged", "Sessions"]

_MAX_RESTART_FAILURES = 3
_NOISE_CHARS = 200
#: The end of a server's stderr quoted in a failure: what fits in a one-line message.
_STDERR_CHARS = 160


class ListingChanged(TargetError):
    """A new session's tool listing no longer fits the plan: a planned tool vanished, or
    lost the read-only annotation its consent rested on. Nothing more is called."""


class Sessions:
    """The sessions of one probe with ``options``; ``on_new`` sees every session after
    the first before it is used, and raises :class:`ListingChanged` to refuse it."""

    def __init__(
        self, options: McpOptions, on_new: Callable[[Session], None] | None = None
    ) -> None:
        self.options = options
        self.on_new = on_new
        self.session: Session | None = None
        self.closed = False
        self.protocol_version = ""
        self.library = ""
        #: The server's ``serverInfo`` (``name version``) of the current (or last) session.
        self.server_info = ""
        self.noise_lines = 0
        self.noise_first = ""
        self._started = 0
        self._loop: EventLoopThread | None = None
        self._node: NodeClient | None = None
        self._stderr: StderrTail | None = None
        self._logs: SdkLogSink | None = None
        self._closing: list[Session] = []
        self._restart_failures = 0
        self._gave_up = ""
        self._gave_up_type = "TargetError"
        #: True once the sessions go over the legacy HTTP+SSE transport: asked for
        #: (``transport='sse'``), or fallen back to when the URL refused the Streamable
        #: HTTP handshake with a 4xx, as the MCP spec's backwards compatibility says.
        self.sse = options.transport == "sse"
        self._first: FirstAnswer | None = None
        #: The caller's environment when the probe opened (``inherit_env``).
        self._environ: dict[str, str] | None = None
        #: The sandbox's directory while the probe is open (``sandbox=True``).
        self.sandbox: str | None = None

    def connect(self) -> Session:
        """The session that is up, or a new one (the client library set up first)."""
        if self.closed:
            raise UsageError("this MCP probe is closed; create a new one.")
        if self.session is not None:
            return self.session
        if self._gave_up_type == ListingChanged.__name__:
            raise ListingChanged(self._gave_up)  # nothing more is called, on any session
        self._prepare()
        self._place()
        try:
            self.session = self.start()
        except ListingChanged as exc:
            self._gave_up, self._gave_up_type = str(exc), ListingChanged.__name__
            raise
        return self.session

    def _place(self) -> None:
        """(When the probe opens.) Take the caller's environment as it is now, and make
        the sandbox (``sandbox=True``); both serve every session of the probe."""
        options = self.options
        if options.kind != "stdio" or self._environ is not None:
            return
        self._environ = dict(os.environ) if options.inherit_env else {}
        if options.sandbox and self.sandbox is None:
            from probes._mcp.sandbox import make_sandbox, new_sandbox

            directory = new_sandbox()
            make_sandbox(directory)
            self.sandbox = directory
            _close_at_exit(self)

    def spawn_env(self) -> dict[str, str] | None:
        """The environment the stdio server is started with: the caller's ``os.environ``
        as it was when the probe opened (``inherit_env``, the default), in a sandbox with
        its own ``HOME`` and ``TMPDIR``, then ``env`` on top; ``inherit_env=False``:
        ``env`` alone (the SDK adds its minimal variables: ``HOME``, ``PATH``...)."""
        options = self.options
        given = dict(options.env) if options.env is not None else None
        base: dict[str, str] | None = None
        if self.sandbox is not None:
            from probes._mcp.sandbox import sandbox_env

            base = sandbox_env(self.sandbox, self._environ, inherit=options.inherit_env)
        elif options.inherit_env:
            base = dict(self._environ if self._environ is not None else os.environ)
        if base is None:
            return given
        return {**base, **(given or {})}

    def spawn_cwd(self) -> str | None:
        """The stdio server's working directory: ``cwd``, or the sandbox's ``work``."""
        if self.sandbox is not None:
            from probes._mcp.sandbox import work_dir

            return work_dir(self.sandbox)
        return _str_or_none(self.options.cwd)

    def _prepare(self) -> None:
        from probes._mcp.session import EventLoopThread, SdkLogSink, StderrTail

        if self.options.client == "typescript":
            if self._node is None:
                from probes._mcp.node.setup import typescript_client

                self._node = typescript_client()
                self._stderr = StderrTail()
        elif self._loop is None:
            try:
                import mcp  # noqa: F401
            except ImportError:
                raise UsageError(f"probes.mcp needs the MCP SDK: {install_hint('mcp')}.") from None
            from probes._mcp.sdk import check_mode

            check_mode(self.options.client, self.options.python_mode)
            self._loop = EventLoopThread()
            self._logs = SdkLogSink()
            self._logs.install()
            if self.options.kind == "stdio":
                self._stderr = StderrTail()

    def start(self) -> Session:
        """Start a new session (not yet the current one); a failed start is a ``TargetError``
        that quotes the server's stderr."""
        session: Session
        if self._node is not None:
            session = self._node_session(self._node)
        else:
            from probes._mcp.session import McpSession

            assert self._loop is not None
            session = McpSession(
                self._loop,
                self._make_client,
                timeout=float(self.options.timeout),
                on_noise=self._noise,
                max_reply=self.options.max_reply,
            )
        try:
            session = self._handshake(session)
        except TargetError as exc:
            raise TargetError(self.with_stderr(str(exc).rstrip("."))) from None
        self._started += 1
        if self._started > 1 and self.on_new is not None:
            try:
                self.on_new(session)
            except ListingChanged:
                session.abandon()
                raise
        self.protocol_version = session.protocol_version
        self.server_info = str(getattr(session, "server_info", "") or "")
        if not self.library:
            self.library = _library_of(session)
        return session

    def _handshake(self, session: Session) -> Session:
        """Start ``session``; over HTTP, when the first session's handshake POST got a 4xx
        that says the URL does not speak Streamable HTTP (404, 405, 400...), start a
        session over the legacy SSE transport instead, and keep to it."""
        try:
            session.start()
        except TargetError as exc:
            first = self._first
            if self._started or first is None or not first.wants_sse:
                raise
            from probes._mcp.session import McpSession

            self.sse = True
            assert self._loop is not None
            session = McpSession(
                self._loop,
                self._make_client,
                timeout=float(self.options.timeout),
                on_noise=self._noise,
                max_reply=self.options.max_reply,
            )
            try:
                session.start()
            except TargetError as sse_exc:
                self.sse = False
                raise TargetError(
                    f"{str(exc).rstrip('.')}; the handshake POST got HTTP {first.status} and "
                    f"the legacy SSE transport failed too ({str(sse_exc).rstrip('.')})."
                ) from None
        return session

    def current(self, text: str, direction: Direction) -> Session | Observation:
        """The session for the next call: the one that is up, or a new one; when none can
        be had, the payload's ``broken`` observation saying why."""
        session = self.session
        if session is not None and not session.dead:
            return session
        self.session = None
        if self._gave_up:
            return self._refused(text, self._gave_up_type, self._gave_up, direction)
        try:
            self.session = self.start()
        except ListingChanged as exc:
            self._gave_up, self._gave_up_type = str(exc), ListingChanged.__name__
            return self._refused(text, self._gave_up_type, self._gave_up, direction)
        except TargetError as exc:
            self._restart_failures += 1
            error = str(exc)
            if self._restart_failures >= _MAX_RESTART_FAILURES:
                self._gave_up = error = (
                    f"the MCP session could not be re-established {_MAX_RESTART_FAILURES} times "
                    f"in a row; not trying again (last error: {exc})"
                )
            return self._refused(text, "TargetError", error, direction)
        self._restart_failures = 0
        return self.session

    @staticmethod
    def _refused(text: str, error_type: str, error: str, direction: Direction) -> Observation:
        return Observation(
            sent=text, status=Status.BROKEN, error_type=error_type, error=error, direction=direction
        )

    def let_go(self, session: Session) -> None:
        """Abandon ``session`` without waiting (its server is killed in the background while
        the next payload starts a new one; ``close()`` waits for it)."""
        session.abandon(wait=False)
        self._closing = [s for s in self._closing if not s.dead]
        self._closing.append(session)
        if self.session is session:
            self.session = None

    def drop(self, session: Session) -> None:
        """Abandon ``session`` now: it is beyond use."""
        session.abandon()
        if self.session is session:
            self.session = None

    def close(self) -> None:
        """End the session, stop the server processes and the event loop."""
        self.closed = True
        session, self.session = self.session, None
        if session is not None:
            session.close()
        closing, self._closing = self._closing, []
        for old in closing:
            old.close()
        if self._loop is not None:
            self._loop.stop()
        if self._stderr is not None:
            self._stderr.close()
        if self._logs is not None:
            self._logs.uninstall()
        if self.sandbox is not None:
            from probes._mcp.sandbox import remove_sandbox

            remove_sandbox(self.sandbox)  # the servers are stopped: nothing writes there

    def with_stderr(self, message: str) -> str:
        """``message`` as a sentence, with the end of the server's stderr and the SDK's
        log records about the server, if any."""
        if self._stderr is not None:
            self._stderr.settle()
        # The last lines say why a server died (a traceback ends with its error): keep
        # few enough characters that the sentence's bound does not cut them off.
        tail = self._stderr.text(_STDERR_CHARS) if self._stderr is not None else ""
        logs = " | ".join(self._logs.messages) if self._logs is not None else ""
        extra = "; ".join(part for part in (f"server stderr: {tail}" if tail else "", logs) if part)
        return f"{message} ({extra})." if extra else f"{message}."

    def _noise(self, line: str, count: int = 1) -> None:
        """(On the event loop, or the TypeScript session's reader.) Count ``count`` stdout
        lines of the server that are not JSON-RPC, ``line`` the first of them."""
        self.noise_lines += count
        if self.noise_lines == count:
            self.noise_first = line[:_NOISE_CHARS]

    def _node_session(self, node: NodeClient) -> NodeSession:
        from fidelity._core.version import __version__
        from probes._mcp.node.session import NodeSession

        where = self.options.where
        target: dict[str, Any]
        if isinstance(where, str):
            target = {"url": where}
        else:
            target = {
                "command": where[0],
                "args": where[1:],
                "env": self.spawn_env(),
                "cwd": self.spawn_cwd(),
            }
        assert self._stderr is not None
        return NodeSession(
            node,
            target,
            timeout=float(self.options.timeout),
            stderr=self._stderr.file,
            client_info={"name": "param-fidelity", "version": __version__},
            max_reply=self.options.max_reply,
            on_noise=self._noise,
        )

    def _make_client(
        self,
        on_message: Callable[[object], Awaitable[None]],
        close_within: Callable[[], float],
    ) -> Client:
        from fidelity._core.version import __version__
        from probes._mcp.sdk import LegacyClient, sdk_major
        from probes._mcp.session import guard_transport
        from probes._mcp.transport import legacy_sse, streamable_http

        timeout, mode, where = (
            float(self.options.timeout),
            self.options.python_mode,
            self.options.where,
        )
        transport: Any
        if isinstance(where, str):
            headers = self.options.headers
            if self.sse:
                raw: Any = legacy_sse(where, headers)
            else:
                self._first = FirstAnswer() if self._started == 0 else None
                raw = streamable_http(where, headers, self._first)
            transport = guard_transport(raw, close_within)
        else:
            transport = guard_transport(self._stdio(), close_within)
        if sdk_major() < 2:  # SDK 1.x: its ClientSession, shaped as mcp.Client
            legacy: Any = LegacyClient(
                transport,
                read_timeout_seconds=timeout,
                client_info=("param-fidelity", __version__),
                message_handler=on_message,
            )
            return cast("Client", legacy)
        from mcp import Client
        from mcp_types import Implementation

        return Client(
            transport,
            read_timeout_seconds=timeout,
            mode=mode,
            cache=None,
            client_info=Implementation(name="param-fidelity", version=__version__),
            message_handler=on_message,  # type: ignore[arg-type]
        )

    def _stdio(self) -> Any:
        """The SDK's stdio transport to the server, with the environment it is given
        (see :meth:`McpOptions.spawn_env`) and its stderr kept in the bounded tail."""
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        where = self.options.where
        assert self._stderr is not None
        assert not isinstance(where, str)
        # errors="replace": with the SDK's default ("strict") one byte that is not
        # UTF-8 on the server's stdout stalls the SDK's reader for good (it drains
        # stdout forever) and every later call times out. Replaced, a garbage line is
        # skipped, and a reply with bad bytes shows as encoding.replacement.
        params = StdioServerParameters(
            command=where[0],
            args=where[1:],
            env=self.spawn_env(),
            cwd=self.spawn_cwd(),
            encoding_error_handler="replace",
        )
        return stdio_client(params, errlog=self._stderr.file)


#: The probes' sessions that hold a sandbox and are not closed yet: closed (their servers
#: stopped, their sandboxes removed) when the interpreter exits, for a probe that was
#: used without ``with`` or ``close()``.
_OPEN_SANDBOXES: weakref.WeakSet[Sessions] = weakref.WeakSet()


def _close_at_exit(sessions: Sessions) -> None:
    if not _OPEN_SANDBOXES:
        atexit.unregister(_close_sandboxed)
        atexit.register(_close_sandboxed)
    _OPEN_SANDBOXES.add(sessions)


def _close_sandboxed() -> None:
    for sessions in list(_OPEN_SANDBOXES):
        if not sessions.closed:
            sessions.close()


def _library_of(session: Session) -> str:
    library = getattr(session, "library", "")
    if library:
        return str(library)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"mcp {version('mcp')}"
    except PackageNotFoundError:
        return "mcp"


def _str_or_none(cwd: str | os.PathLike[str] | None) -> str | None:
    return str(cwd) if cwd is not None else None
