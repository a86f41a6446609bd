"""``probes.mcp``: push payloads through a real MCP chain with the official Python SDK.

The target is a stdio server (an argv list, spawned by the SDK's stdio client) or a
Streamable HTTP server (an ``http(s)`` URL). The value goes into ``param`` of
``tool``; the result is read back with ``read`` (``text``, ``regex:PATTERN``,
``structured:PATH``), or from a second call (``read_tool``) for write-then-read chains.

One session is reused across a survey. Every call has a timeout; a call that timed
out is never retried, and a short health check (a fraction of the timeout) decides
whether the session is kept. A session that dies (the server crashed) makes that
payload ``broken``; the session is re-established and the survey goes on. A value the
SDK cannot serialize (a lone surrogate) is ``rejected`` with ``client_side`` set, as in
the HTTP probe: the client library refused it, the call that carried it fails before
anything is sent, and the session stays up. A session that is let go (it failed its
health check, or died) has its server process killed at once. Against the
reference reflector (tools ``reflect`` and ``emit``) the request path and the response
path are measured apart, in ``parts``.

The SDK's in-memory ``Client(server)`` path is deliberately not offered: it
serializes nothing, so it proves nothing about fidelity.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import Probe, factory, observe_value
from fidelity._probe.observation import Direction, Observation
from probes._mcp.name import target_label
from probes._mcp.read import Reader, parse_read, result_text
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, MIN_MAX_REPLY

if TYPE_CHECKING:
    from mcp import Client

    from probes._mcp.session import EventLoopThread, McpSession, SdkLogSink, StderrTail

__all__ = ["DestructiveToolRefused", "McpProbe", "McpTool", "mcp"]

#: Makes a tool's other required arguments from its listing and the payload's parameter.
ArgumentFiller = Callable[["McpTool", str], Mapping[str, Any]]

_REFLECT_TOOL = "reflect"
_EMIT_TOOL = "emit"
_MAX_RESTART_FAILURES = 3
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


class DestructiveToolRefused(UsageError):
    """The chosen tool is annotated ``destructiveHint`` and the caller did not allow it.

    ``tool`` is its name. The message names the API switch
    (``allow_destructive=True``); a front end names its own with :meth:`advice`.
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(self.advice("allow_destructive=True"))

    def advice(self, switch: str) -> str:
        """The refusal as one sentence that tells the caller to pass ``switch``."""
        return (
            f"tool {safe(self.tool)!r} is annotated destructiveHint: sending payloads may "
            f"overwrite or delete data; point it at disposable data and pass {switch} "
            "to proceed."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class McpTool:
    """A tool as the server lists it: name, description, input schema and annotations.

    ``annotations`` uses the wire names (``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``); both mappings are read-only.
    """

    name: str
    title: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    annotations: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def destructive(self) -> bool:
        """True when the server annotates the tool ``destructiveHint: true`` (and not read-only)."""
        return bool(self.annotations.get("destructiveHint")) and not self.annotations.get(
            "readOnlyHint"
        )

    @property
    def properties(self) -> tuple[str, ...]:
        """The argument names of the input schema."""
        props = self.input_schema.get("properties")
        return tuple(props) if isinstance(props, dict) else ()


def _tool_record(tool: Any) -> McpTool:
    annotations = (
        tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
    )
    return McpTool(
        name=tool.name,
        title=tool.title or "",
        description=tool.description or "",
        input_schema=MappingProxyType(dict(tool.input_schema or {})),
        annotations=MappingProxyType(annotations),
    )


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
    cannot serialize is not: nothing leaves the client).
    """

    def __init__(
        self,
        target: Sequence[str] | str,
        *,
        tool: str = "echo",
        param: str = "text",
        args: Mapping[str, Any] | None = None,
        read: str = "text",
        read_tool: str | None = None,
        read_args: Mapping[str, Any] | None = None,
        transport: Literal["stdio", "http"] | None = None,
        timeout: float = 10.0,
        allow_destructive: bool = False,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        reflector: bool | None = None,
        mode: str = "auto",
        fill_args: ArgumentFiller | None = None,
        max_reply: int = DEFAULT_MAX_REPLY,
    ) -> None:
        self.transport = _transport_of(target, transport)
        self.target: list[str] | str = list(target) if self.transport == "stdio" else str(target)
        if not isinstance(tool, str) or not tool:
            raise UsageError(f"tool={tool!r} must be a tool name.")
        if not isinstance(param, str) or not param:
            raise UsageError(f"param={param!r} must be an argument name.")
        if args is not None and not isinstance(args, Mapping):
            raise UsageError(f"args={args!r} must be a mapping of argument names to values.")
        if read_args is not None and not isinstance(read_args, Mapping):
            raise UsageError(
                f"read_args={read_args!r} must be a mapping of argument names to values."
            )
        if read_args is not None and read_tool is None:
            raise UsageError("read_args is given without read_tool; name the tool that reads back.")
        if not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
            raise UsageError(f"timeout={timeout!r} must be a number of seconds in (0, 3600].")
        if mode not in ("auto", "legacy") and not str(mode)[:1].isdigit():
            raise UsageError(f"mode={mode!r} must be 'auto', 'legacy' or a protocol version.")
        if type(max_reply) is not int or max_reply < MIN_MAX_REPLY:
            raise UsageError(
                f"max_reply={max_reply!r} must be a whole number of bytes, "
                f"at least {MIN_MAX_REPLY}."
            )
        self.max_reply = max_reply
        self.tool = tool
        self.param = param
        self.args = dict(args) if args is not None else None
        self.reader: Reader = parse_read(read)
        self.read_tool = read_tool
        self.read_args = dict(read_args) if read_args is not None else None
        self.timeout = float(timeout)
        self.allow_destructive = allow_destructive
        self.env = dict(env) if env is not None else None
        self.cwd = str(cwd) if cwd is not None else None
        self.reflector = reflector
        self.mode = mode
        self.fill_args = fill_args
        self._requests = 0
        self.name = f"mcp {self.transport} {target_label(self.target)} {safe(tool)}.{safe(param)}"
        self._loop: EventLoopThread | None = None
        self._session: McpSession | None = None
        self._stderr: StderrTail | None = None
        self._logs: SdkLogSink | None = None
        self._tools: tuple[McpTool, ...] | None = None
        self._configured = False
        self._closing: list[McpSession] = []
        self._arguments: dict[str, Any] = {}
        self._read_arguments: dict[str, Any] = {}
        self._split = False
        self._restart_failures = 0
        self._gave_up = ""
        self._closed = False

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
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise UsageError(
                "probes.mcp needs the MCP SDK: pip install 'param-fidelity[mcp]'."
            ) from None
        from probes._mcp.session import EventLoopThread, SdkLogSink, StderrTail

        if self._loop is None:
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
            self._tools = tuple(_tool_record(t) for t in self._session.tools)

    def _start_session(self) -> McpSession:
        from probes._mcp.session import McpSession

        assert self._loop is not None
        session = McpSession(
            self._loop, self._make_client, timeout=self.timeout, max_reply=self.max_reply
        )
        try:
            session.start()
        except TargetError as exc:
            raise TargetError(self._with_stderr(str(exc).rstrip("."))) from None
        return session

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

    def _with_stderr(self, message: str) -> str:
        if self._stderr is not None:
            self._stderr.settle()
        tail = self._stderr.text() if self._stderr is not None else ""
        logs = " | ".join(self._logs.messages) if self._logs is not None else ""
        extra = "; ".join(part for part in (f"server stderr: {tail}" if tail else "", logs) if part)
        return f"{message} ({extra})." if extra else f"{message}."

    def _configure(self, tools: tuple[McpTool, ...]) -> None:
        by_name = {t.name: t for t in tools}
        names = ", ".join(safe(n) for n in sorted(by_name)) or "none"
        for role, name in (("tool", self.tool), ("read_tool", self.read_tool)):
            if name is None:
                continue
            info = by_name.get(name)
            if info is None:
                raise UsageError(
                    f"{role}={safe(name)!r} is not offered by this MCP server; "
                    f"its tools are: {names}."
                )
            if info.destructive and not self.allow_destructive:
                raise DestructiveToolRefused(name)
        chosen = by_name[self.tool]
        if chosen.properties and self.param not in chosen.properties:
            raise UsageError(
                f"param={safe(self.param)!r} is not an argument of tool {safe(self.tool)!r}; "
                f"its arguments are: {', '.join(safe(p) for p in chosen.properties)}."
            )
        if self.args is not None:
            self._arguments = {k: v for k, v in self.args.items() if k != self.param}
        else:
            self._arguments = _required_others(chosen, self.param, self.fill_args)
        if self.read_tool is not None:
            if self.read_args is not None:
                self._read_arguments = dict(self.read_args)
            else:
                # The written value's locator (a path, an id) is in the write arguments.
                wanted = by_name[self.read_tool].properties
                self._read_arguments = {k: v for k, v in self._arguments.items() if k in wanted}
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
        self._split = self.read_tool is None and (
            self.reflector if self.reflector is not None else looks_like_reflector
        )

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
    def arguments(self) -> dict[str, Any]:
        """The arguments sent besides ``param`` (given as ``args`` or generated)."""
        self.open()
        return dict(self._arguments)

    @property
    def requests(self) -> int:
        """How many ``tools/call`` requests this probe has sent (a call the client library
        refused to encode is not counted: nothing was sent)."""
        return self._requests

    @property
    def max_requests_per_observation(self) -> int:
        """The most ``tools/call`` requests one observation sends (opens the probe).

        Three against the reference reflector (``reflect``, ``emit``, then the tool),
        two with ``read_tool``, otherwise one.
        """
        self.open()
        if self._split:
            return 3
        return 2 if self.read_tool is not None else 1

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
            return self._observe_tool(text)
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
            main = self._observe_tool(text)
        return dataclasses.replace(main, parts=(request, response))

    def _observe_tool(self, text: str) -> Observation:
        arguments = dict(self._arguments)
        arguments[self.param] = text
        result = self._call(text, self.tool, arguments, Direction.ROUND_TRIP)
        if isinstance(result, Observation):
            return result
        if result.is_error:
            return self._rejected(text, result, Direction.ROUND_TRIP)
        if self.read_tool is not None:
            result = self._call(
                text, self.read_tool, dict(self._read_arguments), Direction.ROUND_TRIP
            )
            if isinstance(result, Observation):
                return dataclasses.replace(result, error=f"read tool: {result.error}")
            if result.is_error:
                return self._rejected(text, result, Direction.ROUND_TRIP, prefix="read tool: ")
        direction = self.reader.direction
        found, value, why = self.reader.read(result)
        if not found:
            return Observation(
                sent=text, status=Status.LOST, error_type="lost", error=why, direction=direction
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

    def _session_for_call(self, text: str, direction: Direction) -> McpSession | Observation:
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
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        from probes._mcp.session import ReplyTooLarge, UnencodableRequest, UnparsableReply

        session = self._session_for_call(text, direction)
        if isinstance(session, Observation):
            return session
        timeout = self.timeout

        async def call(client: Client) -> Any:
            return await client.call_tool(name, arguments, read_timeout_seconds=timeout)

        self._requests += 1
        try:
            return session.call(call, timeout + _margin(timeout))
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
                error_type="ReplyTooLarge",
                error=str(exc),
                direction=direction,
            )
        except UnparsableReply as exc:
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type="UnparsableReply",
                error=(
                    "the MCP client library could not parse the server's reply "
                    f"({safe(exc.reason[:200])})"
                ),
                wire=exc.raw[:65536].encode("utf-8", "surrogatepass"),
                direction=direction,
            )
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                return self._timed_out(text, session, direction)
            if exc.code == CONNECTION_CLOSED:
                return self._broken(text, session, direction)
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=f"MCPError {exc.code}",
                error=safe(str(exc.message)[:300]),
                direction=direction,
            )
        except BaseException as exc:  # the session's task was cancelled, or the SDK raised
            if session.wait_dead(0.5) or isinstance(exc, (ConnectionError, _cancelled())):
                return self._broken(text, session, direction)
            if not isinstance(exc, Exception):
                raise
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=type(exc).__name__,
                error=f"the MCP client library refused the reply: {safe(str(exc)[:300])}",
                direction=direction,
            )

    def _timed_out(self, text: str, session: McpSession, direction: Direction) -> Observation:
        """A call that timed out is never retried; keep the session only if it still answers.

        The health check gets a small share of the call timeout (``_margin``). A session
        that fails it is abandoned: its server is killed at once (no shutdown grace) in
        the background while the next payload starts a new one; ``close()`` waits for it.
        """
        bound = _margin(self.timeout)

        async def ping(client: Client) -> Any:
            return await client.list_tools()

        exited = session.exit_code
        try:
            if exited is not None:
                raise ConnectionError("the server process exited")
            session.call(ping, bound)
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

    def _broken(self, text: str, session: McpSession, direction: Direction) -> Observation:
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


def _cancelled() -> tuple[type[BaseException], ...]:
    import asyncio
    import concurrent.futures

    return (asyncio.CancelledError, concurrent.futures.CancelledError)


def _required_others(tool: McpTool, param: str, fill: ArgumentFiller | None) -> dict[str, Any]:
    """The tool's other required arguments: made by ``fill``, or none when none are required."""
    required = tool.input_schema.get("required")
    others = [r for r in required if r != param] if isinstance(required, list) else []
    if not others:
        return {}
    if fill is None:
        raise UsageError(
            f"tool {safe(tool.name)!r} needs the arguments {', '.join(map(safe, others))}; "
            "pass them as args={...}."
        )
    return {k: v for k, v in fill(tool, param).items() if k != param}


mcp = factory(
    McpProbe,
    name="mcp",
    doc="""A probe that sends each payload as ``param`` of an MCP ``tool`` and reads it back.

    ``target``: an argv list (a stdio server the SDK spawns; its stderr is kept in a
    bounded buffer, never shown raw) or an ``http(s)`` URL (Streamable HTTP).
    ``args``: the tool's other arguments; without them, ``fill_args(tool, param)`` makes
    the other required ones (the CLI fills them from the ``inputSchema`` with
    ``strategies.from_schema``), and a tool that requires others is a ``UsageError``.
    ``read``: ``text``, ``regex:PATTERN`` (one group), ``structured:PATH`` or
    ``armored:PATH`` (armored evidence of what the tool received: the observation
    is then of the request path); with
    ``read_tool`` it applies to a second call, ``read_tool(**read_args)`` (by default
    the write arguments the read tool accepts, e.g. the same ``path``).
    ``timeout`` bounds every call (timeouts are never retried); the handshake gets
    ``max(timeout + 0.5, 2.5)`` seconds, room for a server process to start. A server
    that stops answering is killed (stdio) or dropped (HTTP) at once. Tools annotated
    ``destructiveHint`` are refused unless ``allow_destructive``. ``reflector`` forces
    (``True``) or disables (``False``) the separate request/response measurement that
    is automatic when the server offers the reflector's ``reflect`` and ``emit``.
    ``mode`` is the SDK's protocol negotiation (``auto``, ``legacy`` or a version).
    ``max_reply`` bounds every message from the server in bytes (8 MiB by default:
    a stdio line, an HTTP body or server-sent event); a longer one is not read
    further, its call is ``broken`` and the server is let go.

    Use it as a context manager; bad arguments and an unknown tool raise
    ``UsageError``, an unreachable server ``TargetError``.
    """,
)
