"""How one MCP call failed, in the same terms whichever client library made it.

A session (the Python SDK's, :mod:`probes._mcp.session`, or the TypeScript SDK's,
:mod:`probes._mcp.node.session`) raises these from ``call_tool``, so the probe turns
the same situation into the same ``Observation`` status for every client:

- ``TimeoutError``: our own bound ran out (the client library did not answer);
- :class:`RpcError`: a JSON-RPC error, from the server or raised by the client library
  under a JSON-RPC code (``REQUEST_TIMEOUT`` and ``CONNECTION_CLOSED`` are the SDKs'
  own codes for a request that timed out and a connection that closed);
- :class:`UnencodableRequest`: the client library could not serialize the request,
  so nothing was sent;
- :class:`UnparsableReply`: the reply arrived but the client library could not parse it;
- :class:`CallFailed`: the call failed in a way the client library reports with an
  exception of its own (``error_type``), e.g. an HTTP error status, or a reply it
  refused; ``message`` says so in full;
- ``ConnectionError``: the session is gone.
"""

from __future__ import annotations

__all__ = [
    "CONNECTION_CLOSED",
    "REQUEST_TIMEOUT",
    "CallFailed",
    "RpcError",
    "UnencodableRequest",
    "UnparsableReply",
]

#: The SDKs' JSON-RPC code for a connection that closed (both SDKs use it).
CONNECTION_CLOSED = -32000
#: The SDKs' JSON-RPC code for a request that got no answer in time.
REQUEST_TIMEOUT = -32001


class RpcError(Exception):
    """A JSON-RPC error: ``code``, ``message`` and ``data`` (``None`` when it had none) as
    the client library reported them."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class UnparsableReply(Exception):
    """The server's reply arrived but the SDK could not parse it; ``raw`` is the line."""

    def __init__(self, reason: str, raw: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class UnencodableRequest(Exception):
    """The SDK's JSON serializer could not write a request; nothing was sent.

    ``cause`` is the serializer's exception (for a lone surrogate, pydantic's
    ``PydanticSerializationError`` wrapping a ``UnicodeEncodeError``).
    """

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class CallFailed(Exception):
    """A call failed as the client library reports it (not as a JSON-RPC error):
    ``error_type`` names what failed, ``message`` says it in a sentence."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
