"""One session of the official TypeScript SDK client, in a driver process.

``NodeSession`` is the TypeScript counterpart of :class:`probes._mcp.session.McpSession`
and offers the probe the same surface (``start``, ``call_tool``, ``ping``, ``close``,
``abandon``, ``dead``, ``failure``, ``exit_code``, ``tools``, ``protocol_version``),
so one ``McpProbe`` runs the same plan through either client. The session is a
``node driver.mjs`` process (see the driver's header for its line protocol) that
holds one ``Client`` of ``@modelcontextprotocol/sdk``: over stdio it spawns the
server itself, over Streamable HTTP it opens its own session.

Commands go out as ASCII JSON (``ensure_ascii``: a lone surrogate travels as its
escape and reaches the SDK as that very UTF-16 code unit); records come back as
ASCII JSON lines, read as bytes and split on LF only, nested no deeper than every
supported Python's ``json`` reads (a result nested deeper is an unparsable reply).
Every wait is bounded: the handshake by the probe's bound plus room for Node and the
SDK to load, each call by the bound the probe gives, every write to the driver too.
The driver leads a process group of its own, with the server it spawns: a session
that is let go has the whole group killed at once; one closed in good order gets the
SDK's grace first.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import IO, Any

from fidelity._core.errors import TargetError
from fidelity._core.render import safe
from probes._mcp.failures import REQUEST_TIMEOUT, CallFailed, RpcError, UnparsableReply
from probes._mcp.node.setup import NodeClient
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, ReplyTooLarge
from probes._mcp.session import StderrTail, handshake_bound

__all__ = ["ContentBlock", "NodeSession", "ToolResult"]

#: Room for ``node`` to start and load the SDK, on top of the handshake bound.
_NODE_START = 5.0
#: A session closed in good order: the driver's own bound on the SDK's close, plus a little.
_CLOSE_WAIT = 6.0
_KILL_GRACE = 0.3
#: The longest line the driver may write: a reply of ``max_reply`` bytes, every
#: character escaped (``\uXXXX`` for a 3-byte character: twice the bytes), plus room.
_LINE_FACTOR = 6
_LINE_ROOM = 1024 * 1024
_MESSAGE_CHARS = 300
_EOF = object()
_TOO_LARGE = object()
#: A record too deeply nested for Python's json (Node's parser took it): the reply in
#: flight arrived, but this side cannot read it. The driver sends none deeper than
#: ``_MAX_DEPTH``; this is the guard behind that bound.
_TOO_DEEP = object()
#: The deepest nesting (arrays and objects, the record itself one level) of a record
#: the driver writes on; a result nested deeper is an unparsable reply. Every supported
#: Python's ``json`` reads this deep from a thread of its own (it stops near 990 levels
#: on 3.11, 1500 on 3.12, 10000 on 3.13), so where the TypeScript client's replies
#: stop being readable does not depend on the Python that runs the probe.
_MAX_DEPTH = 900
#: How much of the driver's own stderr is kept (apart from the server's): enough for
#: the line that names an error, never quoted whole.
_DRIVER_TAIL = 8192
#: The line of the driver's stderr that names what went wrong ("RangeError: ..."),
#: as Node prints it above the stack frames, which are never quoted.
_ERROR_LINE = re.compile(r"\A\s*(?:Uncaught )?([A-Za-z]*(?:Error|Exception)\b.*)\Z")


@dataclass(frozen=True, slots=True)
class ContentBlock:
    """One content block of a tool result: its ``type`` and, for text, its ``text``."""

    type: str
    text: str | None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A ``CallToolResult`` as the TypeScript client returned it (read like the SDK's)."""

    content: tuple[ContentBlock, ...]
    structured_content: Any
    is_error: bool


def _result(raw: object) -> ToolResult:
    data = raw if isinstance(raw, dict) else {}
    blocks = []
    for block in data.get("content") or ():
        if isinstance(block, dict):
            text = block.get("text")
            blocks.append(
                ContentBlock(str(block.get("type", "")), text if isinstance(text, str) else None)
            )
    return ToolResult(
        content=tuple(blocks),
        structured_content=data.get("structuredContent"),
        is_error=data.get("isError") is True,
    )


def _message(error: Mapping[str, Any]) -> str:
    text = str(error.get("message", ""))
    cause = error.get("cause")
    if isinstance(cause, dict) and cause.get("message"):
        text += f" ({cause.get('code') or cause.get('class')}: {cause['message']})"
    return safe(text[:_MESSAGE_CHARS])


def _failure(error: object) -> Exception:
    """The driver's report of a failed request as one of :mod:`probes._mcp.failures`."""
    error = error if isinstance(error, dict) else {}
    cls, message = str(error.get("class", "")), str(error.get("message", ""))
    code = error.get("code")
    if cls == "McpError" and isinstance(code, int) and not isinstance(code, bool):
        # "MCP error -32001: Request timed out" -> "Request timed out", as the Python SDK says it.
        prefix = f"MCP error {code}: "
        return RpcError(code, message.removeprefix(prefix))
    if cls == "UnparsableReply" or (cls == "RangeError" and "call stack" in message):
        # The SDK parsed a reply that is nested deeper than the driver can handle.
        return UnparsableReply("the reply is nested too deeply to be read", "")
    if message == "Not connected":
        return ConnectionError("the MCP session is closed")
    cause = error.get("cause")
    if cls == "TypeError" and isinstance(cause, dict) and "ECONN" in str(cause.get("code", "")):
        return ConnectionError(_message(error))  # fetch failed: the HTTP server went away
    if cls == "StreamableHTTPError" and isinstance(code, int):
        rpc = _rpc_error(message)
        if rpc is not None:  # an HTTP error status whose body is a JSON-RPC error
            return rpc
        return CallFailed(f"HTTP {code}", f"the server answered HTTP {code}: {_message(error)}")
    return CallFailed(cls or "Error", f"the MCP client library refused the call: {_message(error)}")


def _rpc_error(message: str) -> RpcError | None:
    """The JSON-RPC error in the body the SDK quotes in an HTTP error's message."""
    start = message.find("{")
    if start < 0:
        return None
    try:
        body = json.loads(message[start:])
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    assert isinstance(error, dict)
    return RpcError(code, str(error.get("message", "")))


def _records(value: object) -> Any:
    """A driver's JSON result with its objects as attribute records (``uriTemplate``
    also as ``uri_template``), as :mod:`probes._mcp.prompts` reads the Python SDK's."""
    if isinstance(value, list):
        return [_records(v) for v in value]
    if not isinstance(value, dict):
        return value
    fields = {str(k): _records(v) for k, v in value.items()}
    if "uriTemplate" in fields:
        fields.setdefault("uri_template", fields["uriTemplate"])
    return SimpleNamespace(**{k: v for k, v in fields.items() if k.isidentifier()})


class NodeSession:
    """One TypeScript SDK ``Client`` session, held by a driver process.

    ``start()`` spawns the driver, connects (bounded) and lists the tools;
    ``call_tool()`` runs one ``tools/call``; ``failure`` is what ended the session,
    once ``dead`` is set.
    """

    def __init__(
        self,
        setup: NodeClient,
        target: Mapping[str, Any],
        *,
        timeout: float,
        stderr: IO[str] | None,
        client_info: Mapping[str, str],
        max_reply: int = DEFAULT_MAX_REPLY,
        on_noise: Callable[[str, int], None] | None = None,
    ) -> None:
        self._setup = setup
        self._on_noise = on_noise
        self._noise_seen = 0
        self._driver_err: StderrTail | None = None
        self._max_reply = max_reply
        self._max_line = _LINE_FACTOR * max_reply + _LINE_ROOM
        self._target = dict(target)
        self._timeout = timeout
        self._stderr = stderr
        self._client_info = dict(client_info)
        self.tools: list[dict[str, Any]] = []
        self.protocol_version = ""
        #: The server's ``serverInfo``, ``name version`` (empty when it sent none).
        self.server_info = ""
        #: The SDK and Node versions, as the driver reported them.
        self.library = ""
        self.failure: BaseException | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._records: queue.Queue[Any] = queue.Queue()
        self._dead = threading.Event()
        self._ids = 0
        self._exit: int | None = None
        self._closing = False
        self._errors: list[str] = []

    # -- state ----------------------------------------------------------------------

    @property
    def dead(self) -> bool:
        """True once the session ended, by a failure or by ``close()``."""
        return self._dead.is_set()

    def wait_dead(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the session to end; return whether it did."""
        return self._dead.wait(timeout)

    @property
    def exit_code(self) -> int | None:
        """The exit status of the stdio server the driver spawned, once it exited."""
        return self._exit

    # -- the driver process ---------------------------------------------------------

    def start(self) -> None:
        """Spawn the driver, connect, list the tools; ``TargetError`` when that fails."""
        # The server's stderr (stdio) reaches its tail through a descriptor the driver
        # hands on; the driver's own stderr (Node's complaints) is kept apart.
        passed: tuple[int, ...] = ()
        if "command" in self._target:
            fd = self._stderr.fileno() if self._stderr is not None else -1
            if fd >= 0:
                passed = (fd,)
                self._target["stderr_fd"] = fd
        self._driver_err = StderrTail(_DRIVER_TAIL)
        try:
            self._proc = subprocess.Popen(
                [self._setup.node, self._setup.driver],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._driver_err.file,
                pass_fds=passed,
                start_new_session=True,
            )
        except OSError as exc:
            self._driver_err.close()
            raise TargetError(
                f"could not start the TypeScript client (node: {safe(str(exc))})."
            ) from None
        self._driver_err.close()  # the driver holds its copy; the tail ends with it
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        threading.Thread(target=self._read, name="mcp-node-reader", daemon=True).start()
        bound = handshake_bound(self._timeout)
        deadline = time.monotonic() + bound + _NODE_START
        command = {
            "op": "connect",
            "sdk_dir": self._setup.sdk_dir,
            "target": self._target,
            "client_info": self._client_info,
            "timeout_ms": round(bound * 1000),
            "max_reply": self._max_reply,
            "max_depth": _MAX_DEPTH,
        }
        try:
            self._send(command, deadline)
            record = self._next(lambda r: r.get("type") in ("connected", "connect_error"), deadline)
        except TimeoutError:
            self.abandon()
            raise TargetError(
                f"the MCP server did not complete the handshake with the TypeScript client "
                f"within {bound:g}s (a server that starts slowly needs a longer timeout)."
            ) from None
        except (ConnectionError, ReplyTooLarge) as exc:
            self.abandon()
            raise TargetError(
                f"could not open an MCP session through the TypeScript client ({exc})."
            ) from None
        if record.get("type") == "connect_error":
            self.abandon()
            error = record.get("error") or {}
            if error.get("code") == REQUEST_TIMEOUT:
                raise TargetError(
                    f"the MCP server did not complete the handshake with the TypeScript "
                    f"client within {bound:g}s (a server that starts slowly needs a longer "
                    "timeout)."
                )
            raise TargetError(
                "could not open an MCP session through the TypeScript client "
                f"({safe(str(error.get('class', 'Error')))}: {_message(error)})."
            )
        self.protocol_version = str(record.get("protocol_version") or "")
        info = record.get("server_info")
        if isinstance(info, dict):
            self.server_info = f"{info.get('name') or ''} {info.get('version') or ''}".strip()
        self.library = f"@modelcontextprotocol/sdk {record.get('sdk')} (node {record.get('node')})"
        try:
            listing = self._request({"op": "list_tools"}, self._timeout, bound)
        except ReplyTooLarge as exc:
            self.abandon()
            raise TargetError(
                f"could not list the MCP server's tools (ReplyTooLarge: {exc})."
            ) from None
        except (TimeoutError, ConnectionError, RpcError, CallFailed) as exc:
            self.abandon()
            raise TargetError(
                f"could not list the MCP server's tools ({safe(str(exc))})."
            ) from None
        tools = listing.get("tools") if isinstance(listing, dict) else None
        self.tools = [t for t in tools or () if isinstance(t, dict)]

    def _read(self) -> None:
        """(Thread.) Parse the driver's records; note events, queue the rest."""
        assert self._proc is not None
        assert self._proc.stdout is not None
        stream = self._proc.stdout
        why = "the TypeScript client ended"
        try:
            while True:
                line = stream.readline(self._max_line)
                if not line:
                    break
                if not line.endswith(b"\n"):
                    why = "the TypeScript client wrote a line longer than the limit"
                    break
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                except RecursionError:
                    self._records.put(_TOO_DEEP)
                    continue
                if isinstance(record, dict):
                    self._note(record)
        except (OSError, ValueError):
            pass
        finally:
            if not self._closing and self.failure is None:
                self.failure = ConnectionError(self._why(why + self._driver_trouble()))
            self._dead.set()
            self._records.put(_EOF)
            with contextlib.suppress(OSError):
                stream.close()

    def _driver_trouble(self) -> str:
        """What the driver said on its stderr when it ended unasked: the line naming the
        error (cut, terminal-safe), never the stack frames below it; empty if none."""
        tail = self._driver_err
        if tail is None or self._proc is None:
            return ""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(0.5)
        tail.settle()
        for line in tail.text(_DRIVER_TAIL).removeprefix("...").split(" | "):
            found = _ERROR_LINE.match(line)
            if found:  # already terminal-safe
                return f" ({found.group(1).strip()[:_MESSAGE_CHARS]})"
        return ""

    def _note(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "noise":
            self._noted_noise(record)
        elif kind == "fatal":
            error = record.get("error")
            what = _message(error) if isinstance(error, dict) else "unknown error"
            cls = safe(str(error.get("class", "Error"))) if isinstance(error, dict) else "Error"
            if not self._closing and self.failure is None:
                self.failure = ConnectionError(f"the TypeScript client failed ({cls}: {what})")
            self._dead.set()
            self._records.put(_EOF)
        elif kind == "reply_too_large":
            self._records.put(_TOO_LARGE)
        elif kind == "server_exit":
            code, sig = record.get("code"), record.get("signal")
            self._exit = code if isinstance(code, int) else -1 if sig else None
        elif kind == "transport_error":
            error = record.get("error")
            if isinstance(error, dict):
                self._errors = [*self._errors[-4:], _message(error)]
        elif kind == "transport_closed":
            if not self._closing and self.failure is None:
                self.failure = ConnectionError(self._why("the server closed the connection"))
            self._dead.set()
            self._records.put(_EOF)
        else:
            self._records.put(record)

    def _noted_noise(self, record: dict[str, Any]) -> None:
        count, first = record.get("count"), record.get("first")
        if not isinstance(count, int) or isinstance(count, bool) or count <= self._noise_seen:
            return
        added, self._noise_seen = count - self._noise_seen, count
        if self._on_noise is not None:
            self._on_noise(first if isinstance(first, str) else "", added)

    def _why(self, what: str) -> str:
        if self._errors:
            return f"{what} ({'; '.join(self._errors[-2:])})"
        return what

    def _send(self, command: Mapping[str, Any], deadline: float) -> None:
        """Write one command line, bounded by ``deadline``."""
        proc = self._proc
        if proc is None or proc.stdin is None or self.dead:
            raise ConnectionError("the MCP session is closed")
        data = json.dumps(command, ensure_ascii=True).encode("ascii") + b"\n"
        fd = proc.stdin.fileno()
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the TypeScript client did not take the request in time")
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                continue
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                continue
            except OSError:
                raise ConnectionError("the TypeScript client is gone") from None
            view = view[written:]

    def _next(self, wanted: Any, deadline: float) -> dict[str, Any]:
        """The next record ``wanted`` accepts (others are dropped), within ``deadline``."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the TypeScript client in time")
            try:
                record = self._records.get(timeout=left)
            except queue.Empty:
                continue
            if record is _TOO_LARGE:
                raise ReplyTooLarge(self._max_reply)
            if record is _TOO_DEEP:
                raise UnparsableReply("the reply is nested too deeply to be read", "")
            if record is _EOF:
                self._records.put(_EOF)  # for any later wait
                raise ConnectionError(str(self.failure or "the MCP session is closed"))
            if wanted(record):
                result: dict[str, Any] = record
                return result

    def _request(self, command: dict[str, Any], timeout: float, bound: float) -> Any:
        """Send one request with the SDK's ``timeout``; its result, within ``bound``."""
        deadline = time.monotonic() + bound
        self._ids += 1
        ident = self._ids
        self._send({**command, "id": ident, "timeout_ms": max(1, round(timeout * 1000))}, deadline)
        record = self._next(lambda r: r.get("type") == "result" and r.get("id") == ident, deadline)
        if record.get("ok") is True:
            return record.get("result")
        raise _failure(record.get("error"))

    # -- calls ------------------------------------------------------------------------

    def call_tool(
        self, name: str, arguments: dict[str, Any], timeout: float, bound: float
    ) -> ToolResult:
        """One ``tools/call`` with the SDK's own ``timeout``, all of it within ``bound``.

        The result; failures as in :mod:`probes._mcp.failures`.
        """
        return _result(
            self._request({"op": "call_tool", "name": name, "arguments": arguments}, timeout, bound)
        )

    def get_prompt(self, name: str, arguments: dict[str, Any], timeout: float, bound: float) -> Any:
        """One ``prompts/get`` (the SDK's ``getPrompt``) within ``timeout`` seconds
        (``bound`` for the whole call): the result as attribute records; failures as
        for :meth:`call_tool`."""
        command = {
            "op": "get_prompt",
            "name": name,
            "arguments": {k: str(v) for k, v in arguments.items()},
        }
        return _records(self._request(command, timeout, bound))

    def read_resource(self, uri: str, timeout: float, bound: float) -> Any:
        """One ``resources/read`` of ``uri`` (the SDK's ``readResource``), bounded as
        :meth:`get_prompt`."""
        return _records(self._request({"op": "read_resource", "uri": uri}, timeout, bound))

    def prompts_and_templates(self, bound: float) -> tuple[list[Any], list[Any]]:
        """The prompts and resource templates the server lists (first page each; a
        server without the capability, or that does not answer within ``bound`` seconds,
        lists none)."""
        found: list[list[Any]] = []
        for op, key in (
            ("list_prompts", "prompts"),
            ("list_resource_templates", "resourceTemplates"),
        ):
            try:
                result = self._request({"op": op}, bound, bound + _KILL_GRACE)
            except (RpcError, CallFailed, TimeoutError, ConnectionError, ValueError):
                found.append([])  # not offered, or not answered: nothing to survey
                continue
            listed = result.get(key) if isinstance(result, dict) else None
            found.append(_records(listed) if isinstance(listed, list) else [])
        return found[0], found[1]

    def ping(self, bound: float) -> None:
        """A health check (``tools/list``) within ``bound`` seconds; raises when it fails."""
        self._request({"op": "list_tools"}, bound, bound + _KILL_GRACE)

    # -- ending -------------------------------------------------------------------------

    def close(self, *, wait: bool = True) -> None:
        """End the session in good order: the SDK closes it (bounded), the driver exits.

        With ``wait=False`` this only asks; a later ``close()`` waits (bounded).
        """
        proc = self._proc
        if proc is None:
            return
        if not self._closing:
            self._closing = True
            with contextlib.suppress(TimeoutError, ConnectionError):
                self._send({"op": "close"}, time.monotonic() + 1.0)
        if not wait:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_CLOSE_WAIT)
        self._kill_group()
        self._dead.set()

    def abandon(self, *, wait: bool = True) -> None:
        """Let the session go at once: the driver and the server it spawned are killed."""
        self._closing = True
        proc = self._proc
        if proc is None:
            self._dead.set()
            return
        self._signal(signal.SIGTERM)
        if not wait:
            threading.Timer(_KILL_GRACE, self._kill_group).start()
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_KILL_GRACE)
        self._kill_group()
        self._dead.set()

    def _signal(self, signum: int) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            if hasattr(os, "killpg"):
                os.killpg(proc.pid, signum)
            elif proc.poll() is None:
                proc.send_signal(signum)
        except (ProcessLookupError, PermissionError):
            pass

    def _kill_group(self) -> None:
        """SIGKILL whatever is left of the driver's process group; reap the driver."""
        self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2.0)
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
