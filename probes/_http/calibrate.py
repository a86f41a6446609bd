"""Locating an HTTP probe's read-back: one write (and read) carrying a plain marker.

:func:`calibrate` is what :meth:`probes._http.probe.HttpProbe.calibrate` does;
:func:`locate_read` finds the read specification that gives the marker back.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.kinds import Status
from probes._http.exchange import ExchangeFailure, Reply
from probes._http.places import get_path, parse_read
from probes._payload.locate import json_path_of, marker_of, text_pattern

if TYPE_CHECKING:
    from probes._http.probe import HttpProbe

__all__ = ["calibrate", "locate_read"]

#: A path key that a dotted ``json:PATH`` can name.
_DOTTED_KEY = re.compile(r"[^.]+")


def calibrate(probe: HttpProbe) -> str:
    """Locate the read-back of ``probe`` (see :meth:`HttpProbe.calibrate`)."""
    probe._start()
    if probe._calibrated:
        return str(probe.read)
    marker = marker_of(probe.run_id)
    try:
        request = probe._build(marker, echo=False)
        reply = probe._exchange(request)
        if probe._is_reflection(reply):
            probe._seen_reflector = probe._decided = probe._calibrated = True
            return str(probe.read)
        if probe.reflector is None and reply.status < 400:
            probe._plain = probe._decided = True
        if reply.status < 400 and probe._read_url is not None:
            reply = probe._read_back(reply, 0)
    except ExchangeFailure as failure:
        if failure.status in (Status.REJECTED, Status.LOST):
            raise UsageError(
                f"the calibration request (the plain value {marker!r} in place of a "
                f"payload) failed: {failure.error.rstrip('. ')}."
            ) from None
        reason = failure.error.rstrip(". ")
        raise TargetError(f"the calibration request got no answer: {reason}.") from None
    if reply.status >= 400:
        raise UsageError(
            f"the calibration request (the plain value {marker!r} in place of a payload) "
            f"was answered HTTP {reply.status}: {reply.excerpt()}; check the URL and send."
        )
    spec = locate_read(reply, marker)
    if spec is None:
        raise UsageError(
            f"the calibration value {marker!r} did not come back in the response "
            f"({reply.excerpt()[:160] or 'an empty body'}); name where it comes back with "
            "read='WHERE', or read it back from read_url='URL'."
        )
    probe.read = parse_read(spec)
    probe.read_found = probe._calibrated = True
    probe.name = probe._name()
    return spec


def locate_read(reply: Reply, marker: str) -> str | None:
    """The read specification that finds ``marker`` in ``reply`` (checked on it)."""
    response = reply.response
    candidates: list[str] = []
    with contextlib.suppress(ValueError):
        path = json_path_of(reply.json(), marker)
        if path and all(isinstance(p, int) or _DOTTED_KEY.fullmatch(p) for p in path):
            candidates.append("json:" + ".".join(str(p) for p in path))
    text = response.text
    if text == marker:
        candidates.append("body")
    for name, header in response.headers.items():
        if header == marker:
            candidates.append(f"header:{name}")
            break
    pattern = text_pattern(text, marker)
    if pattern is not None:
        candidates.append(f"regex:{pattern}")
    for spec in candidates:
        read = parse_read(spec)
        value: object
        if read.where == "json":
            found, value = get_path(reply.json(), read.name)
        elif read.where == "body":
            found, value = True, text
        elif read.where == "header":
            found, value = True, response.headers.get(read.name)
        else:
            match = read.pattern.search(text)
            found, value = match is not None, match.group(1) if match is not None else None
        if found and value == marker:
            return spec
    return None
