"""One ``tools/call`` whose answer is kept as the server gave it: :func:`raw_call`.

The error contract (``fidelity probe --errors``) judges how a server answers a
malformed call, so it needs what the payload sweep throws away: the whole text of a
refusal (bounded by ``max_reply``), whether it was a tool result flagged ``isError``
or a JSON-RPC error (with its code and data), and whether the session died or the call
timed out. The call goes through the probe's sessions (:mod:`probes._mcp.lifecycle`):
a session that died is let go and the next call starts a new one; a call that timed
out is never resent, and the session is kept only when it passes the health check
(:class:`probes._mcp.call.CallStep`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from fidelity._core.kinds import Status
from fidelity._probe.observation import Direction, Observation
from probes._mcp.call import _cancelled, margin
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
    from probes._mcp.probe import McpProbe

__all__ = ["RawAnswer", "RawOutcome", "raw_call"]

#: A text longer than this is kept cut to it (what a verdict needs to see of it).
_KEPT = 65536


class RawOutcome(StrEnum):
    """How a raw call ended."""

    #: A tool result (``is_error`` says whether it was flagged ``isError: true``).
    RESULT = "result"
    #: A JSON-RPC error from the server (``code``, ``text`` its message, ``data``).
    RPC_ERROR = "rpc-error"
    #: The session or the server process died (or could not be started again).
    CRASHED = "crashed"
    #: No answer within the timeout.
    TIMEOUT = "timeout"
    #: A reply larger than ``max_reply`` (not read further).
    TOO_LARGE = "too-large"
    #: The client library failed the call on its own (a reply it could not parse...).
    FAILED = "failed"
    #: Not sent: no session could be had (the server could not be started again).
    NOT_SENT = "not-sent"


@dataclass(frozen=True, slots=True, kw_only=True)
class RawAnswer:
    """What one ``tools/call`` brought back.

    ``text`` is the result's text blocks joined by line breaks (its structured content
    as JSON when it has no text), or the JSON-RPC error's message, or why the call
    failed; ``data`` is a JSON-RPC error's ``data`` as JSON text (``""`` without);
    ``length`` is the text's length in code points before it was cut to what is kept.
    """

    outcome: RawOutcome
    is_error: bool = False
    code: int | None = None
    text: str = ""
    data: str = ""
    length: int = 0


def _answer(outcome: RawOutcome, text: str, **more: Any) -> RawAnswer:
    return RawAnswer(outcome=outcome, text=text[:_KEPT], length=len(text), **more)


def _result_text(result: Any) -> str:
    texts = [
        block.text
        for block in getattr(result, "content", None) or ()
        if getattr(block, "type", "") == "text" and isinstance(getattr(block, "text", None), str)
    ]
    if texts:
        return "\n".join(texts)
    structured = getattr(result, "structured_content", None)
    if structured is None:
        return ""
    return json.dumps(structured, ensure_ascii=False, default=str)


def _data(data: object) -> str:
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return json.dumps(data, ensure_ascii=False, default=str)


def _failed(observation: Observation) -> RawAnswer:
    """A failure the call step described as an observation: a timeout, or a crash."""
    outcome = RawOutcome.TIMEOUT if observation.status is Status.TIMEOUT else RawOutcome.CRASHED
    return _answer(outcome, observation.error or "")


def raw_call(probe: McpProbe, name: str, arguments: dict[str, Any]) -> RawAnswer:
    """Call ``name`` with ``arguments`` through ``probe``'s sessions and keep the answer.

    Never raises for the server's behaviour: a session that cannot be had, died, or
    timed out is the answer's ``outcome``. ``probe.requests`` counts the call.
    """
    probe.list_tools()  # the first session, and its listing
    step = probe._calls
    session = step.sessions.current("", Direction.ROUND_TRIP)
    if isinstance(session, Observation):
        return _answer(RawOutcome.NOT_SENT, session.error or "the MCP session could not be started")
    step.requests += 1
    timeout = step.timeout
    try:
        result = session.call_tool(name, arguments, timeout, timeout + margin(timeout))
    except TimeoutError:
        return _failed(step._timed_out("", session, Direction.ROUND_TRIP))
    except RpcError as exc:
        if exc.code == REQUEST_TIMEOUT:
            return _failed(step._timed_out("", session, Direction.ROUND_TRIP))
        if exc.code == CONNECTION_CLOSED:
            return _failed(step._broken("", session, Direction.ROUND_TRIP))
        step.answers += 1
        return _answer(RawOutcome.RPC_ERROR, str(exc.message), code=exc.code, data=_data(exc.data))
    except UnencodableRequest as exc:
        step.requests -= 1
        return _answer(
            RawOutcome.FAILED, f"the MCP client library could not encode the call: {exc}"
        )
    except ReplyTooLarge as exc:
        session.abandon()
        return _answer(RawOutcome.TOO_LARGE, str(exc))
    except UnparsableReply as exc:
        step.answers += 1
        return _answer(
            RawOutcome.FAILED, f"the MCP client library could not parse the reply: {exc}"
        )
    except CallFailed as exc:
        if session.wait_dead(0.5):
            return _failed(step._broken("", session, Direction.ROUND_TRIP))
        return _answer(RawOutcome.FAILED, exc.message)
    except BaseException as exc:  # the session's task was cancelled, or the SDK raised
        if session.wait_dead(0.5) or isinstance(exc, (ConnectionError, _cancelled())):
            return _failed(step._broken("", session, Direction.ROUND_TRIP))
        if not isinstance(exc, Exception):
            raise
        return _answer(RawOutcome.FAILED, f"the MCP client library failed: {type(exc).__name__}")
    step.answers += 1
    return _answer(RawOutcome.RESULT, _result_text(result), is_error=bool(result.is_error))
