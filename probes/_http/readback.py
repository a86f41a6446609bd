"""Reading the value back from an HTTP response at a read place, and comparing it.

:func:`read_observation` finds the value at ``read`` (``json:PATH``, ``body``,
``header:NAME``, ``regex:PATTERN``) in a reply and observes it against what was sent:
a reply that is not JSON where JSON was promised is ``broken``, a value that is not
there (or a calibration marker left from an earlier run) is ``lost``.
"""

from __future__ import annotations

from typing import Any

from fidelity._core.kinds import Status
from fidelity._probe.contract import observe_value
from fidelity._probe.observation import Direction, Observation
from probes._http.exchange import Reply
from probes._http.places import ReadSpec, get_path
from probes._payload.expect import Expectation
from probes._payload.locate import STALE_READ, is_marker
from probes._payload.placeholders import Filled

__all__ = ["read_observation"]


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
    ``expected`` and the payload's ``values``: with what the read-back must equal)."""
    where, name = read.where, read.name
    response = reply.response
    missing = ""
    value: object = None
    if where == "json":
        try:
            document = reply.json()
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
        found, value = get_path(document, name)
        if not found:
            missing = f"the response has no value at json:{name}."
    elif where == "body":
        value = response.text
    elif where == "header":
        value = response.headers.get(name)
        if value is None:
            missing = f"the response has no {name} header."
    else:
        match = read.pattern.search(response.text)
        if match is None:
            missing = f"the pattern of read=regex:{name} does not match the response."
        else:
            value = match.group(1)
    if is_marker(value) and not is_marker(text):
        missing = STALE_READ + "."
    if missing:
        return Observation(
            sent=text,
            status=Status.LOST,
            error_type="Missing",
            error=missing,
            direction=direction,
            **fields,
        )
    if expected is not None and values is not None and not expected.is_default:
        return expected.judge(text, value, values, direction=direction, fields=fields)
    return observe_value(text, value, direction=direction, **fields)
