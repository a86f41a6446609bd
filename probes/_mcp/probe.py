"""``probes.mcp``: push payloads through a real MCP chain with the official Python SDK.

The target is a stdio server (an argv list, spawned by the SDK's stdio client) or a
Streamable HTTP server (an ``http(s)`` URL). The value goes into the arguments of
``tool`` at ``param`` (a path) and/or where ``args`` holds ``"{payload}"``, after the
setup calls of ``before``; the result is read back with ``read`` (``text``,
``regex:PATTERN``, ``json:PATH``, ``structured:PATH``; located by a calibration call
when ``None``), or from a second call (``read_tool``) for write-then-read chains. What
each call's arguments are is worked out in :mod:`probes._mcp.calls`.

One session is reused across a survey. Every call has a timeout; a call that timed
out is never retried, and a short health check (a fraction of the timeout) decides
whether the session is kept. A session that dies (the server crashed) makes that
payload ``broken``; the session is re-established and the survey goes on. A value the
SDK cannot serialize (a lone surrogate) is ``rejected`` with ``client_side`` set, as in
the HTTP probe: the client library refused it, the call that carried it fails before
anything is sent, and the session stays up. ``client`` names the client library the
probe speaks through (:mod:`probes._mcp.clients`): the Python SDK with either
handshake, or the TypeScript SDK in a driver process (:mod:`probes._mcp.node.session`);
both sessions fail a call in the same terms (:mod:`probes._mcp.failures`), so the same
situation is the same status whichever client met it. A session that is let go (it failed its
health check, or died) has its server process killed at once. Against the
reference reflector (tools ``reflect`` and ``emit``) the request path and the response
path are measured apart, in ``parts``.

The SDK's in-memory ``Client(server)`` path is deliberately not offered: it
serializes nothing, so it proves nothing about fidelity.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.extras import install_hint
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import Probe, factory, observe_value
from fidelity._probe.observation import Direction, Observation
from fidelity._probe.setup import ProbeSetup, SetupStep
from probes._mcp.calibrate import CalibrationFailed, calibrate, no_text
from probes._mcp.calls import ArgumentFiller, CallPlan, check_consent, plan_calls
from probes._mcp.clients import CLIENTS, PYTHON_MODES, ClientInfo
from probes._mcp.failures import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallFailed,
    RpcError,
    UnencodableRequest,
    UnparsableReply,
)
from probes._mcp.name import target_label
from probes._mcp.read import Reader, parse_read, result_text
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, MIN_MAX_REPLY, ReplyTooLarge
from probes._mcp.template import ArgumentTemplate, steps_of
from probes._mcp.tools import DestructiveToolRefused, McpTool, consent_reason, tool_records
from probes._payload.locate import STALE_READ, is_marker
from probes._payload.paths import ParamPath
from probes._payload.placeholders import Filled, new_run_id

if TYPE_CHECKING:
    from mcp import Client

    from probes._mcp.node.session import NodeSession
    from probes._mcp.node.setup import NodeClient
    from probes._mcp.session import EventLoopThread, McpSession, SdkLogSink, StderrTail

    _Session = McpSession | NodeSession

__all__ = [
    "ArgumentFiller",
    "CalibrationFailed",
    "DestructiveToolRefused",
    "McpProbe",
    "McpTool",
    "mcp",
]

_REFLECT_TOOL = "reflect"
_EMIT_TOOL = "emit"
_MAX_RESTART_FAILURES = 3
_NOISE_CHARS = 200
#: The end of a server's stderr quoted in a failure: what fits in a one-line message.
_STDERR_CHARS = 160
#: What a lost observation quotes of the tool's answer, in code points.
_EXCERPT = 160
#: How the SDK's Streamable HTTP client words a reply it could not parse (as a
#: JSON-RPC parse error of its own making).
_CLIENT_PARSE_ERRORS = ("Failed to parse JSON response", "Failed to parse SSE message")
#: JSON-RPC's parse error code, under which the HTTP client reports a body it could not parse.
_PARSE_ERROR = -32700
#: After a call timed out, the health check (``tools/list``) gets this share of the
#: call timeout, within the bounds below; the same margin bounds our own wait around
#: the SDK's per-call timeout. A timed-out payload thus ends within the timeout plus
#: at most twice the margin (a server that fails the health check is killed at once).
_MARGIN_SHARE = 0.2
_MARGIN_MIN = 0.2
_MARGIN_MAX = 2.0


def _margin(timeout: float) -> float:
    """The health-check bound (and the slack over the SDK's own timeout) for ``timeout``."""
    return min(_MARGIN_MAX, max(_MARGIN_MIN, timeout * _MARGIN_SHARE))


def _transport_of(target: object, transport: str | None) -> Literal["stdio", "http"]:
    if isinstance(target, (list, tuple)):
        if not target or not all(isinstance(a, str) for a in target):
            raise UsageError("an MCP stdio target must be a non-empty list of strings (the argv).")
        kind: Literal["stdio", "http"] = "stdio"
    elif isinstance(target, str) and target.lower().startswith(("http://", "https://")):
        kind = "http"
    elif isinstance(target, str):
        raise UsageError(
            f"target {safe(target)!r} is neither an http(s) URL nor an argv list; "
            "pass a stdio server command as a list, e.g. ['npx', 'my-server']."
        )
    else:
        raise UsageError(f"target={target!r} must be an argv list (stdio) or an http(s) URL.")
    if transport is not None and transport != kind:
        raise UsageError(
            f"transport={transport!r} does not fit the target: an argv list is 'stdio', "
            "an http(s) URL is 'http'."
        )
    return kind


class McpProbe(Probe):
    """A probe through one MCP tool (see :func:`mcp`). Use it as a context manager.

    ``list_tools()`` lists the server's tools (``tools`` too, once the chosen tool is
    checked) and ``tool_info`` describes the chosen one (its input schema and
    annotations). ``requests`` counts the ``tools/call`` requests sent (one the SDK
    cannot serialize is not: nothing leaves the client). ``param`` is the payload's
    place once the probe is open (taken from the schema when none was given),
    ``calibrate()`` locates the read-back when ``read`` is ``None``, and ``setup``
    records the whole plan.
    """

    def __init__(
        self,
        target: Sequence[str] | str,
        *,
        tool: str = "echo",
        param: str | None = None,
        args: Mapping[str, Any] | None = None,
        before: Sequence[Any] | None = None,
        read: str | None = "text",
        read_tool: str | None = None,
        read_args: Mapping[str, Any] | None = None,
        transport: Literal["stdio", "http"] | None = None,
        timeout: float = 10.0,
        allow_destructive: bool = False,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        reflector: bool | None = None,
        mode: str | None = None,
        fill_args: ArgumentFiller | None = None,
        client: str | None = None,
        max_reply: int = DEFAULT_MAX_REPLY,
    ) -> None:
        self._options: dict[str, Any] = {
            "target": target, "tool": tool, "param": param, "args": args, "before": before,
            "read": read, "read_tool": read_tool, "read_args": read_args,
            "transport": transport, "timeout": timeout,
            "allow_destructive": allow_destructive, "env": env, "cwd": cwd,
            "reflector": reflector, "mode": mode, "fill_args": fill_args, "client": client,
            "max_reply": max_reply,
        }  # fmt: skip
        self.transport = _transport_of(target, transport)
        self.target: list[str] | str = list(target) if self.transport == "stdio" else str(target)
        if not isinstance(tool, str) or not tool:
            raise UsageError(f"tool={tool!r} must be a tool name.")
        self.param_path = ParamPath.parse(param) if param is not None else None
        if self.param_path is not None and not isinstance(self.param_path.top, str):
            raise UsageError(f"param={param!r} must start with an argument name.")
        self.template = ArgumentTemplate.of(args, where="args") if args is not None else None
        self.steps = steps_of(before)
        if read_tool is not None and (not isinstance(read_tool, str) or not read_tool):
            raise UsageError(f"read_tool={read_tool!r} must be a tool name.")
        if read_args is not None and read_tool is None:
            raise UsageError("read_args is given without read_tool; name the tool that reads back.")
        self.read_template = (
            ArgumentTemplate.of(read_args, where="read_args") if read_args is not None else None
        )
        if not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
            raise UsageError(f"timeout={timeout!r} must be a number of seconds in (0, 3600].")
        if mode is not None and mode not in ("auto", "legacy") and not str(mode)[:1].isdigit():
            raise UsageError(f"mode={mode!r} must be 'auto', 'legacy' or a protocol version.")
        if client is not None and client not in CLIENTS:
            raise UsageError(
                f"client={client!r} is not an MCP client; the clients are: {', '.join(CLIENTS)}."
            )
        if client is not None and mode is not None:
            raise UsageError(
                f"mode={mode!r} applies when no client is named; client={client!r} has its "
                "own (python: the legacy handshake; python-2026: 2026-07-28 where the server "
                "supports it)."
            )
        if type(max_reply) is not int or max_reply < MIN_MAX_REPLY:
            raise UsageError(
                f"max_reply={max_reply!r} must be a whole number of bytes, "
                f"at least {MIN_MAX_REPLY}."
            )
        self.max_reply = max_reply
        self.tool = tool
        self.param = param
        self.args = dict(args) if args is not None else None
        # None: located by a calibration call (``calibrate``) before the first payload.
        self.reader: Reader | None = parse_read(read) if read is not None else None
        self.read_found = False
        self.read_tool = read_tool
        self.read_args = dict(read_args) if read_args is not None else None
        self.timeout = float(timeout)
        self.allow_destructive = allow_destructive
        self.env = dict(env) if env is not None else None
        self.cwd = str(cwd) if cwd is not None else None
        self.reflector = reflector
        self.client = client
        self.mode: str = PYTHON_MODES.get(client or "", mode or "auto")
        self.fill_args = fill_args
        self._requests = 0
        self._answers = 0
        self.run_id = new_run_id()
        self._sent = 0
        self.name = self._name(param)
        self._loop: EventLoopThread | None = None
        self._node: NodeClient | None = None
        self._protocol_version = ""
        self._library = ""
        self._session: _Session | None = None
        self._stderr: StderrTail | None = None
        self._logs: SdkLogSink | None = None
        self._tools: tuple[McpTool, ...] | None = None
        self._configured = False
        self._closing: list[_Session] = []
        self._plan: CallPlan | None = None
        self._split = False
        self._restart_failures = 0
        self._gave_up = ""
        self._closed = False
        self._noise_lines = 0
        self._noise_first = ""

    # -- session management -------------------------------------------------------

    def open(self) -> McpProbe:
        """Start the session and check the tool (done on entry or first use)."""
        self._connect()
        if not self._configured:
            assert self._tools is not None
            try:
                self._configure(self._tools)
            except BaseException:
                self.close()
                raise
            self._configured = True
        return self

    def list_tools(self) -> tuple[McpTool, ...]:
        """The tools the server lists; starts the session if needed, checks no tool choice.

        Unlike ``tools``, this works when the server lacks the chosen tool (or it is
        destructive): it is how to look at a server before choosing.
        """
        self._connect()
        assert self._tools is not None
        return self._tools

    def _connect(self) -> None:
        """Start a session unless one is up; the first one records the tool list."""
        if self._closed:
            raise UsageError("this MCP probe is closed; create a new one.")
        if self._session is not None:
            return
        from probes._mcp.session import EventLoopThread, SdkLogSink, StderrTail

        if self.client == "typescript":
            if self._node is None:
                from probes._mcp.node.setup import typescript_client

                self._node = typescript_client()
                self._stderr = StderrTail()
        elif self._loop is None:
            try:
                import mcp  # noqa: F401
            except ImportError:
                raise UsageError(f"probes.mcp needs the MCP SDK: {install_hint('mcp')}.") from None
            self._loop = EventLoopThread()
            self._logs = SdkLogSink()
            self._logs.install()
            if self.transport == "stdio":
                self._stderr = StderrTail()
        first = self._tools is None
        try:
            self._session = self._start_session()
        except TargetError:
            if first:
                self.close()
            raise
        if first:
            try:
                self._tools = tool_records(self._session.tools)
            except TargetError:
                self.close()
                raise

    def _start_session(self) -> _Session:
        session: _Session
        if self._node is not None:
            session = self._node_session(self._node)
        else:
            from probes._mcp.session import McpSession

            assert self._loop is not None
            session = McpSession(
                self._loop,
                self._make_client,
                timeout=self.timeout,
                on_noise=self._noise,
                max_reply=self.max_reply,
            )
        try:
            session.start()
        except TargetError as exc:
            raise TargetError(self._with_stderr(str(exc).rstrip("."))) from None
        self._protocol_version = session.protocol_version
        if not self._library:
            self._library = self._library_of(session)
        return session

    def _node_session(self, node: NodeClient) -> NodeSession:
        from fidelity._core.version import __version__
        from probes._mcp.node.session import NodeSession

        target: dict[str, Any]
        if isinstance(self.target, str):
            target = {"url": self.target}
        else:
            target = {
                "command": self.target[0],
                "args": self.target[1:],
                "env": self.env,
                "cwd": self.cwd,
            }
        assert self._stderr is not None
        return NodeSession(
            node,
            target,
            timeout=self.timeout,
            stderr=self._stderr.file,
            client_info={"name": "param-fidelity", "version": __version__},
            max_reply=self.max_reply,
            on_noise=self._noise,
        )

    @staticmethod
    def _library_of(session: _Session) -> str:
        library = getattr(session, "library", "")
        if library:
            return str(library)
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"mcp {version('mcp')}"
        except PackageNotFoundError:
            return "mcp"

    @property
    def client_info(self) -> ClientInfo:
        """The client this probe speaks through: its name, library (with its version) and
        the protocol version of the current (or last) session (empty before the first)."""
        return ClientInfo(
            client=self.client or "",
            library=self._library,
            protocol_version=self._protocol_version,
        )

    def with_client(self, client: str | None, **changes: Any) -> McpProbe:
        """A new probe with this one's options, speaking through ``client`` (and any
        option in ``changes`` replaced, e.g. the ``read`` this one located)."""
        options = {**self._options, "client": client, **changes}
        if client is not None:
            options["mode"] = None
        return McpProbe(**options)

    def _make_client(
        self,
        on_message: Callable[[object], Awaitable[None]],
        close_within: Callable[[], float],
    ) -> Client:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp_types import Implementation

        from fidelity._core.version import __version__
        from probes._mcp.session import guard_transport, streamable_http

        info = Implementation(name="param-fidelity", version=__version__)
        if isinstance(self.target, str):
            return Client(
                guard_transport(streamable_http(self.target), close_within),
                read_timeout_seconds=self.timeout,
                mode=self.mode,
                cache=None,
                client_info=info,
                message_handler=on_message,  # type: ignore[arg-type]
            )
        assert self._stderr is not None
        # errors="replace": with the SDK's default ("strict") one byte that is not
        # UTF-8 on the server's stdout stalls the SDK's reader for good (it drains
        # stdout forever) and every later call times out. Replaced, a garbage line is
        # skipped, and a reply with bad bytes shows as encoding.replacement.
        params = StdioServerParameters(
            command=self.target[0],
            args=self.target[1:],
            env=self.env,
            cwd=self.cwd,
            encoding_error_handler="replace",
        )
        return Client(
            guard_transport(stdio_client(params, errlog=self._stderr.file), close_within),
            read_timeout_seconds=self.timeout,
            mode=self.mode,
            cache=None,
            client_info=info,
            message_handler=on_message,  # type: ignore[arg-type]
        )

    def _noise(self, line: str, count: int = 1) -> None:
        """(On the event loop, or the TypeScript session's reader.) Count ``count`` stdout
        lines of the server that are not JSON-RPC, ``line`` the first of them."""
        self._noise_lines += count
        if self._noise_lines == count:
            self._noise_first = line[:_NOISE_CHARS]

    @property
    def stdout_noise(self) -> tuple[int, str]:
        """How many lines the server wrote to stdout that are not JSON-RPC (a banner, log
        lines, bytes that are not UTF-8, shown as U+FFFD), and the first of them, raw
        (cut to 200 characters). This client skips them; stricter clients fail on them."""
        return self._noise_lines, self._noise_first

    def _with_stderr(self, message: str) -> str:
        if self._stderr is not None:
            self._stderr.settle()
        # The last lines say why a server died (a traceback ends with its error): keep
        # few enough characters that the sentence's bound does not cut them off.
        tail = self._stderr.text(_STDERR_CHARS) if self._stderr is not None else ""
        logs = " | ".join(self._logs.messages) if self._logs is not None else ""
        extra = "; ".join(part for part in (f"server stderr: {tail}" if tail else "", logs) if part)
        return f"{message} ({extra})." if extra else f"{message}."

    def _name(self, label: str | None) -> str:
        place = f"{safe(self.tool)}.{safe(label)}" if label else safe(self.tool)
        return f"mcp {self.transport} {target_label(self.target)} {place}"

    def _configure(self, tools: tuple[McpTool, ...]) -> None:
        """Resolve the options against the tool list; check consent before any call."""
        by_name = {t.name: t for t in tools}
        reflect, emit = by_name.get(_REFLECT_TOOL), by_name.get(_EMIT_TOOL)
        looks_like_reflector = (
            self.tool == "echo"
            and reflect is not None
            and emit is not None
            and "text" in reflect.properties
            and "value" in emit.properties
        )
        if self.reflector and not looks_like_reflector:
            raise UsageError(
                "reflector=True but the server does not offer the reflector's 'reflect(text)' "
                "and 'emit(value)' tools."
            )
        plain = self.read_tool is None and not self.steps
        split = plain and (self.reflector if self.reflector is not None else looks_like_reflector)
        plan = plan_calls(
            tools,
            tool=self.tool,
            param=self.param_path,
            template=self.template,
            steps=self.steps,
            read_tool=self.read_tool,
            read_template=self.read_template,
            fill=self.fill_args,
            helpers=(_REFLECT_TOOL, _EMIT_TOOL) if split else (),
        )
        if split and plan.payload_paths != (ParamPath(("text",)),):
            split = bool(self.reflector)
            if split:
                raise UsageError(
                    "reflector=True measures the reflector's echo(text); the payload must go "
                    "into text alone."
                )
            plan = dataclasses.replace(
                plan, calls=tuple(c for c in plan.calls if c[1] != "reflector helper")
            )
        check_consent(plan.calls, self.allow_destructive)
        self._plan = plan
        self._split = split
        if split and self.reader is None:
            self.reader = parse_read("text")  # the reflector's echo answers the text itself
        self.param = plan.label
        self.name = self._name(plan.label)

    @property
    def tools(self) -> tuple[McpTool, ...]:
        """The tools the server lists (opens the probe, so the chosen tool is checked)."""
        self.open()
        assert self._tools is not None
        return self._tools

    @property
    def tool_info(self) -> McpTool:
        """The chosen tool: its input schema and annotations."""
        return next(t for t in self.tools if t.name == self.tool)

    @property
    def plan(self) -> CallPlan:
        """The calls made for each payload, resolved against the tool list (opens the probe)."""
        self.open()
        assert self._plan is not None
        return self._plan

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments sent besides the payload (from ``args``, or generated), as
        they are for the first payload."""
        arguments = self.plan.arguments(self._values("", 1))
        for path in self.plan.payload_paths:
            if len(path.segments) == 1:
                arguments.pop(str(path.top), None)
        return arguments

    @property
    def requests(self) -> int:
        """How many ``tools/call`` requests this probe has sent (a call the client library
        refused to encode is not counted: nothing was sent)."""
        return self._requests

    @property
    def answers(self) -> int:
        """How many times the server answered so far: a call's result or JSON-RPC error,
        or a health check after a timeout. A timed-out payload that leaves it unchanged
        means the server stopped answering; one that raised it, only that payload."""
        return self._answers

    @property
    def max_requests_per_observation(self) -> int:
        """The most ``tools/call`` requests one observation sends (opens the probe).

        Three against the reference reflector (``reflect``, ``emit``, then the tool);
        otherwise one, plus one per setup step, plus one with ``read_tool``.
        """
        self.open()
        if self._split:
            return 3
        return 1 + len(self.steps) + (1 if self.read_tool is not None else 0)

    @property
    def needs_calibration(self) -> bool:
        """True while the read-back is still to be located (``read=None``; opens the probe)."""
        self.open()
        return self.reader is None and not self._split

    def calibrate(self) -> str:
        """Locate the read-back with one call of the whole chain carrying a plain marker.

        Returns the read specification found (the one given when there is nothing to
        locate). The marker is ASCII, unique to the run; it goes through the setup
        steps, the tool and the read tool like a payload with ``{n}`` = 0, and counts
        in ``requests``. A marker that does not come back is a ``UsageError``; a chain
        that fails on it a ``UsageError`` (refused) or ``TargetError`` (no answer).
        """
        return calibrate(self)

    @property
    def setup(self) -> ProbeSetup:
        """The plan of this probe, for the JSON result and the card (opens the probe)."""
        plan = self.plan
        target = self.target if isinstance(self.target, str) else shlex.join(self.target)
        return ProbeSetup(
            transport=f"mcp {self.transport}",
            target=target,
            tool=self.tool,
            param=str(plan.param) if plan.param is not None else "",
            param_found=plan.param_found,
            args=plan.template.to_json() if plan.template is not None else "",
            before=tuple(SetupStep(tool=s.tool, args=s.arguments.to_json()) for s in self.steps),
            read=self.reader.spec if self.reader is not None else "",
            read_found=self.read_found,
            read_tool=self.read_tool or "",
            read_args=self.read_template.to_json() if self.read_template is not None else "",
            allow_destructive=self.allow_destructive
            and any(consent_reason(info) for info, _ in plan.calls),
        )

    @property
    def tolerates_timeouts(self) -> bool:
        """True when every tool the run calls is annotated ``readOnlyHint`` or
        ``idempotentHint`` true (opens the probe): a call that timed out then leaves
        nothing to fear from going on. Any other tool may have written, or still be
        writing, so a run should stop at its first timeout."""
        plan = self._plan if self._plan is not None else self.plan  # no new session
        return all(_harmless(info) for info, _ in plan.calls)

    @property
    def connected(self) -> bool:
        """True while a session is up: after a timeout, it answered its health check."""
        session = self._session
        return session is not None and not session.dead

    @property
    def splits_directions(self) -> bool:
        """True when request and response paths are measured apart (reflector targets)."""
        self.open()
        return self._split

    def __enter__(self) -> McpProbe:
        return self.open()

    def close(self) -> None:
        """End the session, stop the server process and the event loop."""
        self._closed = True
        session, self._session = self._session, None
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

    # -- observing ----------------------------------------------------------------

    def observe(self, text: str) -> Observation:
        """Push ``text`` through the tool; against a reflector, measure both paths too."""
        self.open()
        if not self._split:
            if self.reader is None:
                self.calibrate()
            self._sent += 1
            return self._observe_tool(text, self._values(text, self._sent))
        request = self._observe_request(text)
        response = self._observe_response(text)
        if request.client_side:
            # The SDK just showed it cannot encode this text in a tools/call; the round
            # trip would fail the same way.
            main = dataclasses.replace(
                request,
                direction=Direction.ROUND_TRIP,
                error=f"{request.error} (shown on the request path; not sent again)",
            )
        else:
            self._sent += 1
            main = self._observe_tool(text, self._values(text, self._sent))
        return dataclasses.replace(main, parts=(request, response))

    def _values(self, payload: str, n: int) -> Filled:
        return Filled(payload=payload, n=n, run=self.run_id)

    def _chain(self, text: str, values: Filled) -> Any:
        """The setup steps, the payload tool, the read tool: the result to read the value
        from, or how the chain failed as an ``Observation``."""
        plan = self.plan
        for i, step in enumerate(plan.steps, 1):
            done = self._step(text, i, step.tool, step.arguments.fill(values))
            if done is not None:
                return done
        arguments = plan.arguments(values)
        result = self._call(text, self.tool, arguments, Direction.ROUND_TRIP)
        if isinstance(result, Observation):
            if result.status is Status.TIMEOUT and self.read_tool is not None:
                return self._effect_after(result, values, arguments)
            return result
        if result.is_error:
            return self._rejected(text, result, Direction.ROUND_TRIP)
        if self.read_tool is not None:
            read_arguments = plan.read_arguments(values, arguments)
            result = self._call(text, self.read_tool, read_arguments, Direction.ROUND_TRIP)
            if isinstance(result, Observation):
                return dataclasses.replace(result, error=f"read tool: {result.error}")
            if result.is_error:
                return self._rejected(text, result, Direction.ROUND_TRIP, prefix="read tool: ")
        return result

    def _effect_after(
        self, timed_out: Observation, values: Filled, arguments: dict[str, Any]
    ) -> Observation:
        """A payload call that timed out on a tool that may write: read back once.

        Only when the session still answers (the health check passed) and the read-back
        is known; the read tool is called once, never the payload tool again. The
        observation stays a ``timeout``, with ``effect`` ``landed`` (the value read back
        is the payload, or a rewrite of it that the kinds explain), ``absent`` (the read
        answered without it) or ``unknown`` (no read was possible, or it failed).
        """
        if self.tolerates_timeouts:
            return timed_out
        text = timed_out.sent
        effect, why = "unknown", "not possible, the session no longer answers"
        if self.connected and self.reader is not None:
            read_arguments = self.plan.read_arguments(values, arguments)
            result = self._call(text, str(self.read_tool), read_arguments, Direction.ROUND_TRIP)
            if isinstance(result, Observation):
                why = f"the read tool did not answer ({result.status.value})"
            elif result.is_error:
                why = f"the read tool answered an error: {result_text(result, 120)}"
            else:
                found, value, _ = self.reader.read(result, values)
                seen = observe_value(text, value) if found else None
                if (
                    seen is not None
                    and (
                        seen.status is Status.PRESERVED
                        or (seen.comparison is not None and seen.comparison.explained)
                    )
                    and "unknown" not in seen.kinds
                ):
                    effect, why = "landed", "the value is there"
                else:
                    effect, why = "absent", "the value is not there"
        error = f"no answer within {self.timeout:g}s; read back once afterwards: {why}"
        return dataclasses.replace(timed_out, effect=effect, error=f"{error} (effect: {effect})")

    def _step(self, text: str, i: int, tool: str, arguments: dict[str, Any]) -> Observation | None:
        """Call setup step ``i``; ``None`` when it worked, else the payload's observation.

        A step that fails makes the payload ``broken``, naming the step (a step is
        never retried); one that timed out is a ``timeout``; a value the client library
        cannot encode stays the client's refusal (``rejected``, ``client_side``).
        """
        name = f"setup step {i} ({safe(tool)})"
        result = self._call(text, tool, arguments, Direction.ROUND_TRIP)
        if isinstance(result, Observation):
            if result.client_side or result.status in (Status.TIMEOUT, Status.BROKEN):
                return dataclasses.replace(result, error=f"{name}: {result.error}")
            return dataclasses.replace(
                result,
                status=Status.BROKEN,
                error_type="SetupStep",
                error=f"{name} failed: {result.error_type}: {result.error}",
            )
        if result.is_error:
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="SetupStep",
                error=f"{name} failed: {result_text(result) or 'an error without text'}",
            )
        return None

    def _observe_tool(self, text: str, values: Filled) -> Observation:
        result = self._chain(text, values)
        if isinstance(result, Observation):
            return result
        assert self.reader is not None
        direction = self.reader.direction
        found, value, why = self.reader.read(result, values)
        if is_marker(value) and not is_marker(text):
            found, why = False, STALE_READ
        if not found:
            answered = result_text(result, _EXCERPT) or no_text(result)
            return Observation(
                sent=text,
                status=Status.LOST,
                error_type="lost",
                error=f"{why.rstrip('.')}; it answered: {answered}",
                direction=direction,
            )
        return observe_value(text, value, direction=direction)

    def _observe_request(self, text: str) -> Observation:
        from fidelity._core.armor import unarmor

        result = self._call(text, _REFLECT_TOOL, {"text": text}, Direction.REQUEST)
        if isinstance(result, Observation):
            return result
        if result.is_error:
            return self._rejected(text, result, Direction.REQUEST)
        try:
            received = unarmor(result.structured_content)
        except UsageError as exc:
            return Observation(
                sent=text,
                status=Status.LOST,
                error_type="lost",
                error=f"the reflector's answer has no armored value ({exc})",
                direction=Direction.REQUEST,
            )
        return observe_value(text, received, direction=Direction.REQUEST)

    def _observe_response(self, text: str) -> Observation:
        from fidelity._core.armor import armor

        result = self._call(text, _EMIT_TOOL, {"value": armor(text)}, Direction.RESPONSE)
        if isinstance(result, Observation):
            return result
        if result.is_error:
            return self._rejected(text, result, Direction.RESPONSE)
        found, value, why = parse_read("text").read(result)
        if not found:
            return Observation(
                sent=text,
                status=Status.LOST,
                error_type="lost",
                error=why,
                direction=Direction.RESPONSE,
            )
        return observe_value(text, value, direction=Direction.RESPONSE)

    def _rejected(
        self, text: str, result: Any, direction: Direction, prefix: str = ""
    ) -> Observation:
        return Observation(
            sent=text,
            status=Status.REJECTED,
            error_type="isError",
            error=prefix + (result_text(result) or "the tool reported an error without text"),
            direction=direction,
        )

    def _session_for_call(self, text: str, direction: Direction) -> _Session | Observation:
        session = self._session
        if session is not None and not session.dead:
            return session
        self._session = None
        if self._gave_up:
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="TargetError",
                error=self._gave_up,
                direction=direction,
            )
        try:
            self._session = self._start_session()
        except TargetError as exc:
            self._restart_failures += 1
            error = str(exc)
            if self._restart_failures >= _MAX_RESTART_FAILURES:
                self._gave_up = error = (
                    f"the MCP session could not be re-established {_MAX_RESTART_FAILURES} times "
                    f"in a row; not trying again (last error: {exc})"
                )
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="TargetError",
                error=error,
                direction=direction,
            )
        self._restart_failures = 0
        return self._session

    def _call(self, text: str, name: str, arguments: dict[str, Any], direction: Direction) -> Any:
        """One ``tools/call``: the ``CallToolResult``, or the failure as an ``Observation``."""
        session = self._session_for_call(text, direction)
        if isinstance(session, Observation):
            return session
        timeout = self.timeout
        self._requests += 1
        try:
            result = session.call_tool(name, arguments, timeout, timeout + _margin(timeout))
        except TimeoutError:
            return self._timed_out(text, session, direction)
        except UnencodableRequest as exc:
            self._requests -= 1  # nothing was sent
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=type(exc.cause).__name__,
                error=(
                    "the MCP client library could not encode the value "
                    f"({safe(str(exc.cause)[:300])}); nothing was sent"
                ),
                direction=direction,
                client_side=True,
            )
        except ReplyTooLarge as exc:
            session.abandon()
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type=ReplyTooLarge.__name__,
                error=str(exc),
                direction=direction,
            )
        except UnparsableReply as exc:
            # The server answered, but not in a form the client can read: a failure of
            # the chain's protocol, not the tool's refusal of this value.
            self._answers += 1
            wire = exc.raw[:65536].encode("utf-8", "surrogatepass")
            return _unparsable(text, f"parse the server's reply ({exc.reason})", direction, wire)
        except RpcError as exc:
            if exc.code == REQUEST_TIMEOUT:
                return self._timed_out(text, session, direction)
            if exc.code == CONNECTION_CLOSED:
                return self._broken(text, session, direction)
            self._answers += 1
            if exc.code == _PARSE_ERROR and str(exc.message).startswith(_CLIENT_PARSE_ERRORS):
                # The Streamable HTTP client's own report of a body (or event) it could
                # not parse: the reply, not the request, failed.
                return _unparsable(text, f"parse the server's reply ({exc.message})", direction)
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=f"MCPError {exc.code}",
                error=safe(str(exc.message)[:300]),
                direction=direction,
            )
        except CallFailed as exc:
            if session.wait_dead(0.5):
                return self._broken(text, session, direction)
            if exc.error_type.startswith("HTTP "):
                self._answers += 1
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=exc.error_type,
                error=safe(exc.message[:400]),
                direction=direction,
            )
        except BaseException as exc:  # the session's task was cancelled, or the SDK raised
            if session.wait_dead(0.5) or isinstance(exc, (ConnectionError, _cancelled())):
                return self._broken(text, session, direction)
            if not isinstance(exc, Exception):
                raise
            # The SDK could not take the reply in: a failure of the chain's protocol, as
            # for a reply it could not parse at all.
            why = f"take the server's reply in ({type(exc).__name__}: {exc})"
            return _unparsable(text, why, direction)
        self._answers += 1
        return result

    def _timed_out(self, text: str, session: _Session, direction: Direction) -> Observation:
        """A call that timed out is never retried; keep the session only if it still answers.

        The health check gets a small share of the call timeout (``_margin``). A session
        that fails it is abandoned: its server is killed at once (no shutdown grace) in
        the background while the next payload starts a new one; ``close()`` waits for it.
        """
        bound = _margin(self.timeout)
        exited = session.exit_code
        try:
            if exited is not None:
                raise ConnectionError("the server process exited")
            session.ping(bound)
            self._answers += 1
        except BaseException:
            session.abandon(wait=False)
            self._closing = [s for s in self._closing if not s.dead]
            self._closing.append(session)
            if self._session is session:
                self._session = None
        if exited is not None:
            # The server died, but a process it left behind (in its group, killed now)
            # held its stdout open, so the SDK never saw the connection close.
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="ServerExited",
                error=self._with_stderr(
                    f"the MCP server process exited (status {exited}) without answering, "
                    "while a process it started kept its output open"
                ),
                direction=direction,
            )
        return Observation(
            sent=text,
            status=Status.TIMEOUT,
            error_type="TimeoutError",
            error=f"no answer within {self.timeout:g}s; the effect on the server is unknown",
            direction=direction,
        )

    def _broken(self, text: str, session: _Session, direction: Direction) -> Observation:
        from probes._mcp.session import describe_failure

        # What ended the session, unless it is still up (only the connection closed):
        # then it is beyond use and abandoned, its server killed at once.
        failure = session.failure if session.dead else None
        session.abandon()
        if self._session is session:
            self._session = None
        if failure is not None:
            error_type, message, client_side = describe_failure(failure)
            if client_side:
                return Observation(
                    sent=text,
                    status=Status.BROKEN,
                    error_type=error_type,
                    error=message,
                    direction=direction,
                    client_side=True,
                )
            message = self._with_stderr(f"the MCP session died: {message}")
        else:
            error_type = "ConnectionClosed"
            message = self._with_stderr("the MCP server closed the connection")
        return Observation(
            sent=text,
            status=Status.BROKEN,
            error_type=error_type,
            error=message,
            direction=direction,
        )


def _unparsable(
    sent: str, what: str, direction: Direction, wire: bytes | None = None
) -> Observation:
    """A reply the client library could not ``what`` (parse, take in): a failure of the
    chain's protocol (``broken``, error type ``UnparsableReply``), not a refusal of the
    value; ``what`` is cut to a bounded, terminal-safe sentence."""
    return Observation(
        sent=sent,
        status=Status.BROKEN,
        error_type=UnparsableReply.__name__,
        error=f"the MCP client library could not {safe(what[:300])}",
        wire=wire,
        direction=direction,
    )


def _harmless(tool: McpTool) -> bool:
    """A tool whose call may time out without harm: read-only or idempotent (hints)."""
    hints = tool.annotations
    return hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True


def _cancelled() -> tuple[type[BaseException], ...]:
    import asyncio
    import concurrent.futures

    return (asyncio.CancelledError, concurrent.futures.CancelledError)


mcp = factory(
    McpProbe,
    name="mcp",
    doc="""A probe that sends each payload into the arguments of an MCP ``tool`` and reads it back.

    ``target``: an argv list (a stdio server the SDK spawns; its stderr is kept in a
    bounded buffer, never shown raw) or an ``http(s)`` URL (Streamable HTTP).
    ``param``: where the payload goes, a path into the arguments (``message``,
    ``edits[0].oldText``, ``entities[0].observations[0]``); by default the tool's only
    free-form string parameter (several, or none, is a ``UsageError`` listing them).
    ``args``: the tool's arguments, a template: a string value that is exactly
    ``"{payload}"`` becomes the payload (``param`` is then not needed), ``{n}`` in a
    string a number unique to the payload (1, 2, 3... in the order sent; 0 for the
    calibration call) and ``{run}`` an id unique to the run; ``{{`` and ``}}`` are
    literal braces. Containers along ``param`` come from ``args`` or are created.
    Without ``args``, ``fill_args(tool, key)`` makes the tool's other required
    arguments (the CLI fills them from the ``inputSchema`` with
    ``strategies.from_schema``), and a tool that requires others is a ``UsageError``.
    ``before``: setup calls made before each payload, ``[(tool, args), ...]`` with the
    same placeholders; one that fails makes the payload ``broken``, naming the step.
    ``read``: ``text``, ``regex:PATTERN`` (one group), ``json:PATH`` (JSON in the text
    content), ``structured:PATH`` or ``armored:PATH`` (armored evidence of what the
    tool received: the observation is then of the request path); ``None``: located
    by one calibration call with a plain marker before the first payload
    (``calibrate()``). With ``read_tool`` it applies to a second call,
    ``read_tool(**read_args)`` (a template too; by default the tool's arguments the
    read tool accepts, e.g. the same ``path``). ``setup`` records the whole plan.
    ``timeout`` bounds every call (timeouts are never retried); the handshake gets
    ``max(timeout + 0.5, 2.5)`` seconds, room for a server process to start. A server
    that stops answering is killed (stdio) or dropped (HTTP) at once. A tool is called
    only when annotated ``readOnlyHint: true`` unless ``allow_destructive`` (every tool
    of the run is checked before the first call; annotations are the server's hints,
    not guarantees); a tool name listed twice is a ``TargetError``. ``reflector`` forces
    (``True``) or disables (``False``) the separate request/response measurement that
    is automatic when the server offers the reflector's ``reflect`` and ``emit``.
    ``mode`` is the Python SDK's protocol negotiation (``auto``, the default: protocol
    2026-07-28 where the server supports it; ``legacy``; or a version). ``client``
    names the client library instead: ``python`` (the Python SDK, legacy handshake),
    ``python-2026`` (the Python SDK, ``mode="auto"``) or ``typescript`` (the official
    TypeScript SDK in Node.js: it needs ``node``, and installs its npm dependency on
    first use into ``~/.cache/param-fidelity``, or uses the ``node_modules`` that
    ``FIDELITY_NODE_MODULES`` names). ``client_info`` says which client, library and
    protocol version a session used; ``with_client`` makes the same probe for another
    client.
    ``max_reply`` bounds every message from the server in bytes (8 MiB by default:
    a stdio line, an HTTP body or server-sent event); a longer one is not read
    further, its call is ``broken`` and the server is let go.

    Use it as a context manager; bad arguments and an unknown tool raise
    ``UsageError``, an unreachable server ``TargetError``.
    """,
)
