"""One ``tools/call`` of an MCP probe, and what its failure means: :class:`CallStep`.

Every call has a timeout; a call that timed out is never retried, and a short health
check (a share of the timeout, ``margin``) decides whether the session is kept. A
session that died makes the call ``broken`` (the next call starts a new session); a
value the client library cannot serialize is ``rejected`` with ``client_side`` set and
the session stays up. Both client libraries fail a call in the same terms
(:mod:`probes._mcp.failures`), so the same situation is the same status whichever
client met it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.observation import Direction, Observation
from probes._mcp.failures import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallFailed,
    RpcError,
    UnencodableRequest,
    UnparsableReply,
)
from probes._mcp.reply_limit import ReplyTooLarge

if TYPE_CHECKING:
    from probes._mcp.lifecycle import Session, Sessions
    from probes._mcp.prompts import Route

__all__ = ["CallStep", "margin"]

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


def margin(timeout: float) -> float:
    """The health-check bound (and the slack over the SDK's own timeout) for ``timeout``."""
    return min(_MARGIN_MAX, max(_MARGIN_MIN, timeout * _MARGIN_SHARE))


class CallStep:
    """``tools/call`` requests through ``sessions``, each bounded by ``timeout`` seconds.

    ``requests`` counts the requests sent (one the client library refused to encode is
    not: nothing was sent); ``answers`` the times the server answered (a result, a
    JSON-RPC error, or a health check after a timeout).
    """

    def __init__(self, sessions: Sessions, timeout: float) -> None:
        self.sessions = sessions
        self.timeout = timeout
        self.requests = 0
        self.answers = 0
        #: Prompts' and resource templates' records, by name (see ``_send``).
        self.routes: dict[str, Route] = {}

    def call(self, text: str, name: str, arguments: dict[str, Any], direction: Direction) -> Any:
        """One ``tools/call``: the ``CallToolResult``, or the failure as an ``Observation``."""
        session = self.sessions.current(text, direction)
        if isinstance(session, Observation):
            return session
        self.requests += 1
        try:
            result = self._send(session, name, arguments)
        except TimeoutError:
            return self._timed_out(text, session, direction)
        except UnencodableRequest as exc:
            self.requests -= 1  # nothing was sent
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
            self.answers += 1
            wire = exc.raw[:65536].encode("utf-8", "surrogatepass")
            return _unparsable(text, f"parse the server's reply ({exc.reason})", direction, wire)
        except RpcError as exc:
            return self._rpc_error(text, exc, session, direction)
        except CallFailed as exc:
            if session.wait_dead(0.5):
                return self._broken(text, session, direction)
            if exc.error_type.startswith("HTTP "):
                self.answers += 1
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
        self.answers += 1
        return result

    def _send(self, session: Session, name: str, arguments: dict[str, Any]) -> Any:
        """The request ``name`` stands for: a ``tools/call``, or, for a prompt's or a
        resource template's record (:mod:`probes._mcp.prompts`), ``prompts/get`` or
        ``resources/read``, its answer shaped like a tool result."""
        from probes._mcp.prompts import PROMPT, answer_of, expand

        timeout = self.timeout
        bound = timeout + margin(timeout)
        route = self.routes.get(name)
        if route is None:
            return session.call_tool(name, arguments, timeout, bound)
        if route.kind == PROMPT:
            return answer_of(session.get_prompt(route.target, arguments, timeout, bound))
        return answer_of(session.read_resource(expand(route.target, arguments), timeout, bound))

    def _rpc_error(
        self, text: str, exc: RpcError, session: Session, direction: Direction
    ) -> Observation:
        if exc.code == REQUEST_TIMEOUT:
            return self._timed_out(text, session, direction)
        if exc.code == CONNECTION_CLOSED:
            return self._broken(text, session, direction)
        self.answers += 1
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

    def _timed_out(self, text: str, session: Session, direction: Direction) -> Observation:
        """A call that timed out is never retried; keep the session only if it still answers.

        The health check gets a small share of the call timeout (``margin``). A session
        that fails it is abandoned: its server is killed at once (no shutdown grace) in
        the background while the next payload starts a new one; ``close()`` waits for it.
        """
        bound = margin(self.timeout)
        exited = session.exit_code
        try:
            if exited is not None:
                raise ConnectionError("the server process exited")
            session.ping(bound)
            self.answers += 1
        except BaseException:
            self.sessions.let_go(session)
        if exited is not None:
            # The server died, but a process it left behind (in its group, killed now)
            # held its stdout open, so the SDK never saw the connection close.
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="ServerExited",
                error=self.sessions.with_stderr(
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

    def _broken(self, text: str, session: Session, direction: Direction) -> Observation:
        from probes._mcp.session import describe_failure

        # What ended the session, unless it is still up (only the connection closed):
        # then it is beyond use and abandoned, its server killed at once.
        failure = session.failure if session.dead else None
        self.sessions.drop(session)
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
            message = self.sessions.with_stderr(f"the MCP session died: {message}")
        else:
            error_type = "ConnectionClosed"
            message = self.sessions.with_stderr("the MCP server closed the connection")
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


def _cancelled() -> tuple[type[BaseException], ...]:
    import asyncio
    import concurrent.futures

    return (asyncio.CancelledError, concurrent.futures.CancelledError)
