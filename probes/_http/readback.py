"""Reading the value back from an HTTP response at a read place, and comparing it.

:func:`read_observation` finds the value at ``read`` (``json:PATH``, ``body``,
``header:NAME``, ``regex:PATTERN``) in a reply and observes it against what was sent:
a reply that is not JSON where JSON was promised is ``broken``, a value that is not
there (or a calibration marker left from an earlier run) is ``lost``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import httpx

from fidelity._core.kinds import Status
from fidelity._probe.contract import observe_value
from fidelity._probe.observation import Direction, Observation
from probes._http.exchange import ExchangeFailure, Reply
from probes._http.places import ReadSpec, get_path
from probes._payload.expect import Expectation
from probes._payload.locate import STALE_READ, is_marker
from probes._payload.placeholders import Filled

__all__ = ["ident_of", "location_path", "payload_segment", "read_observation"]

#: What a lost observation quotes of the response, in code points.
_EXCERPT = 160


def read_observation(
    read: ReadSpec,
    text: str,
    reply: Reply,
    *,
    direction: Direction = Direction.ROUND_TRIP,
    expected: Expectation | None = None,
    values: Filled | None = None,
    **fields: Any,
) -> Observation:
    """Find the value at ``read`` in ``reply`` and compare it with ``text`` (with
    ``expected`` and the payload's ``values``: with what the read-back must equal);
    ``values`` fill the placeholders of a ``json:`` path. A lost value quotes the
    response."""
    try:
        _, value, missing = reply.read(read, values)
    except ValueError as exc:
        # The endpoint answered, but not in the form the chain promises: a
        # failure of the protocol, not the endpoint's refusal of this value.
        return Observation(
            sent=text,
            status=Status.BROKEN,
            error_type="UnparsableReply",
            error=f"the response is not JSON ({exc}); excerpt: {reply.excerpt()}",
            direction=direction,
            **fields,
        )
    if is_marker(value) and not is_marker(text):
        missing = STALE_READ + "."
    if missing:
        answered = reply.excerpt()[:_EXCERPT] or "an empty body"
        return Observation(
            sent=text,
            status=Status.LOST,
            error_type="Missing",
            error=f"{missing.rstrip('.')}; what came back (HTTP {reply.status}): {answered}",
            direction=direction,
            **fields,
        )
    if expected is not None and values is not None and not expected.is_default:
        return expected.judge(text, value, values, direction=direction, fields=fields)
    return observe_value(text, value, direction=direction, **fields)


def location_path(reply: Reply, location: str) -> str:
    """The path and query of ``location`` resolved against the write's URL (RFC 9110:
    a URI reference); its host is not followed (``read_url`` names it)."""
    try:
        target = reply.response.request.url.join(location)
    except (httpx.InvalidURL, ValueError):
        raise ExchangeFailure(
            Status.LOST, "NoId", "the write response's Location header is not a URL."
        ) from None
    return target.raw_path.decode("ascii")


def ident_of(reply: Reply, spec: ReadSpec) -> str | None:
    """The id the write response holds at ``spec`` (``None`` when it holds none)."""
    if spec.where == "header":
        header: str | None = reply.response.headers.get(spec.name)
        return header
    if spec.where == "regex":
        match = spec.pattern.search(reply.response.text)
        return str(match.group(1)) if match is not None else None
    found, ident = False, None
    with contextlib.suppress(ValueError):
        found, ident = get_path(reply.json(), spec.name)
    if not found or ident is None or isinstance(ident, (dict, list)):
        return None
    if isinstance(ident, bool):
        return "true" if ident else "false"
    return str(ident)


def payload_segment(text: str) -> str:
    """``text`` as the one path segment ``{payload}`` stands for in ``read_url``; a value
    with no UTF-8 form (a lone surrogate) is the client's refusal."""
    from probes._payload.placeholders import path_segment

    try:
        return path_segment(text)
    except UnicodeError as exc:
        raise ExchangeFailure(
            Status.REJECTED,
            type(exc).__name__,
            f"the HTTP client refused to encode the value in read_url ({exc}).",
            client_side=True,
        ) from None
