"""Locating an HTTP probe's read-back: writes (and reads) carrying calibration markers.

:func:`calibrate` is what :meth:`probes._http.probe.HttpProbe.calibrate` does;
:func:`locate_read` finds the read specification that gives the marker back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from fidelity._core.errors import TargetError, UsageError, ended
from fidelity._core.kinds import Status
from probes._http.exchange import ExchangeFailure, Reply
from probes._http.places import parse_read
from probes._payload.calibration import CalibrationFailed, miss, proven_or_rewritten
from probes._payload.locate import (
    MARKER_SHAPES,
    markers_of,
    near_value,
    split_fields,
    structure_paths,
    text_patterns,
)
from probes._payload.paths import ParamPath
from probes._payload.placeholders import CALIBRATION_NUMBERS, Filled

if TYPE_CHECKING:
    import httpx

    from probes._http.options import HttpOptions
    from probes._http.places import ReadSpec, SendSpec
    from probes._payload.placeholders import TextTemplate


class HttpProbe(Protocol):
    """What calibration needs of the HTTP probe it calibrates."""

    read: ReadSpec
    read_found: bool
    run_id: str
    options: HttpOptions
    name: str
    _default_name: str
    reflector: bool | None
    _calibrated: bool
    _seen_reflector: bool
    _decided: bool
    _plain: bool
    _read_url: TextTemplate | None
    place: SendSpec

    def _start(self) -> httpx.Client: ...

    def _build(self, text: str, *, echo: bool, n: int = 0) -> httpx.Request: ...

    def _exchange(self, request: httpx.Request) -> Reply: ...

    def _is_reflection(self, reply: Reply) -> bool: ...

    def _read_back(self, reply: Reply, n: int, text: str = "") -> Reply: ...

    def _name(self) -> str: ...


__all__ = ["calibrate", "locate_read"]


def calibrate(probe: HttpProbe) -> str:
    """Locate the read-back of ``probe`` (see :meth:`HttpProbe.calibrate`).

    Each marker of :func:`~probes._payload.locate.markers_of` is sent like a payload,
    with ``{n}`` from :data:`~probes._payload.placeholders.CALIBRATION_NUMBERS` (the
    payloads keep 1, 2, 3...); the read kept is the
    first that gives every marker back exactly from its own response.
    """
    probe._start()
    if probe._calibrated:
        return str(probe.read)
    markers: tuple[str, ...] = markers_of(probe.run_id)
    values = [
        Filled(payload=m, n=n, run=probe.run_id)
        for n, m in zip(CALIBRATION_NUMBERS, markers, strict=True)
    ]
    replies: list[Reply] = []
    kept: list[int] = []
    for i, marker in enumerate(markers):
        try:
            reply = _send(probe, marker, i)
        except CalibrationFailed:
            if i:
                continue  # a place that refuses quotes or line breaks: proved on the others
            raise
        if reply is None:
            return str(probe.read)  # the reference reflector: it reads itself
        replies.append(reply)
        kept.append(i)
    # The read-back holds what expect says (the marker, or text around it).
    values = [values[n] for n in kept]
    markers = tuple(probe.options.expected.value(v) for v in values)
    spec, why = locate_read(replies, markers, values, hint=_hint(probe))
    if spec is None:
        answered = replies[0].excerpt()[:160] or "an empty body"
        if why:
            raise CalibrationFailed(
                f"the calibration values came back, but no read gives every one back "
                f"exactly: {why}; the response: {answered}; name where the value comes back "
                "with read='WHERE'.",
                answer=f"{why}; the response: {answered}",
            )
        raise CalibrationFailed(
            f"the calibration value {markers[0]!r} did not come back in the response "
            f"({answered}); name where it comes back with read='WHERE', or read it back "
            "from read_url='URL'.",
            answer=f"the calibration value did not come back; the response: {answered}",
        )
    probe.read = parse_read(spec)
    probe.read_found = probe._calibrated = True
    if probe.name == probe._default_name:  # a name set by the caller is kept
        probe.name = probe._default_name = probe._name()
    return spec


def _send(probe: HttpProbe, marker: str, i: int) -> Reply | None:
    """The response to marker ``i`` (read back when there is a read URL); ``None``
    when the target is the reference reflector."""
    value = f"the plain value {marker!r}" if i == 0 else f"a value with {MARKER_SHAPES[i]}"
    try:
        request = probe._build(marker, echo=False, n=CALIBRATION_NUMBERS[i])
        reply = probe._exchange(request)
        if probe._is_reflection(reply):
            probe._seen_reflector = probe._decided = probe._calibrated = True
            return None
        if probe.reflector is None and reply.status < 400:
            probe._plain = probe._decided = True
        if reply.status < 400 and probe._read_url is not None:
            reply = probe._read_back(reply, CALIBRATION_NUMBERS[i], marker)
    except ExchangeFailure as failure:
        reason = failure.error.rstrip(". ")
        if failure.status in (Status.REJECTED, Status.LOST):
            raise CalibrationFailed(
                f"the calibration request ({value} in place of a payload) failed: {reason}.",
                answer=f"the calibration request ({value}) failed: {reason}",
            ) from None
        raise TargetError(
            f"the calibration request ({value} in place of a payload) got no answer: "
            f"{ended(reason)}"
        ) from None
    if reply.status >= 400:
        raise CalibrationFailed(
            f"the calibration request ({value} in place of a payload) was answered HTTP "
            f"{reply.status} ({_advice(reply.status)}): {reply.excerpt()}.",
            answer=f"the calibration request ({value}) was answered HTTP {reply.status}: "
            f"{reply.excerpt()[:160]}",
        )
    return reply


def _hint(probe: HttpProbe) -> str | None:
    """The last key of the place the value is sent to (a path ending there is preferred)."""
    name = probe.place.name if probe.place.where in ("json", "form", "multipart", "query") else ""
    if not name:
        return None
    try:
        path = ParamPath.parse(name, what="send")
    except UsageError:
        return None
    keys = [s for s in path.segments if isinstance(s, str)]
    return keys[-1] if keys else None


def _advice(status: int) -> str:
    """What to check after the calibration request was answered ``status``."""
    if status in (401, 403):
        return "the endpoint wants credentials: a header (--header) or basic auth (--auth)"
    if status in (405, 404):
        return "check the URL, the method (--method) and the send place"
    if status in (400, 422):
        return (
            "check the send place, and give the other fields the endpoint requires in a "
            "body template (--body)"
        )
    return "check the URL and send"


def locate_read(
    replies: Sequence[Reply], markers: Sequence[str], values: Sequence[Filled], *, hint: str | None
) -> tuple[str | None, str]:
    """The read specification that finds ``markers[i]`` in ``replies[i]``, every one
    exactly, or ``None`` and why not. A body that is JSON is read inside the decoded
    document (``json:PATH``), never with a pattern over its raw text."""
    documents: list[object] = []
    for reply in replies:
        try:
            documents.append(reply.json())
        except ValueError:
            break
    is_json = len(documents) == len(replies)
    texts = [r.response.text for r in replies]

    def candidates_of(k: int) -> list[str]:
        """The reads derived from the first ``k`` replies."""
        found: list[str] = []
        if is_json:
            paths = structure_paths(documents[:k], markers[:k], values[:k], hint=hint)
            found += [f"json:{p}" for p in paths]
        if all(t == m for t, m in zip(texts[:k], markers[:k], strict=True)):
            found.append("body")
        for name, header in replies[0].response.headers.items():
            if header == markers[0]:
                found.append(f"header:{name}")
        if not is_json:
            found += [f"regex:{p}" for p in text_patterns(texts[:k], markers[:k])]
        return found

    def read(spec: str, i: int) -> tuple[bool, object]:
        found, value, _ = replies[i].read(parse_read(spec), values[i])
        return found, value

    spec = proven_or_rewritten(candidates_of, read, markers)
    if spec is not None:
        return spec, ""
    candidates = candidates_of(len(markers))
    near = [
        near_value(d, m) for d, m in zip(documents if is_json else texts, markers, strict=False)
    ]
    last = len(markers) - 1
    split = split_fields(documents[last], markers[last]) if is_json else ()
    return None, miss(candidates, read, markers, near=near, split=split)
