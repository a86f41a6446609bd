"""Locating an MCP probe's read-back: calls of the whole chain carrying calibration markers.

:func:`calibrate` is what :meth:`probes._mcp.probe.McpProbe.calibrate` does; a marker
that does not come back, or a chain that refuses it, is :class:`CalibrationFailed`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.observation import Observation
from probes._mcp.read import _texts, locate, no_text, parse_read, result_text
from probes._payload.calibration import CalibrationFailed, error_like
from probes._payload.locate import MARKER_SHAPES, markers_of
from probes._payload.placeholders import CALIBRATION_NUMBERS

if TYPE_CHECKING:
    from probes._mcp.calls import CallPlan
    from probes._mcp.read import Reader
    from probes._payload.expect import Expectation
    from probes._payload.placeholders import Filled


class McpProbe(Protocol):
    """What calibration needs of the MCP probe it calibrates."""

    reader: Reader | None
    read_found: bool
    read_tool: str | None
    run_id: str
    expected: Expectation
    _split: bool

    @property
    def plan(self) -> CallPlan: ...

    def open(self) -> object: ...

    def _chain(self, text: str, values: Filled) -> Any: ...

    def _values(self, payload: str, n: int) -> Filled: ...


__all__ = ["CalibrationFailed", "calibrate"]


def calibrate(probe: McpProbe, pace: Callable[[], None] | None = None) -> str:
    """Locate the read-back of ``probe`` (see :meth:`McpProbe.calibrate`).

    Each marker of :func:`~probes._payload.locate.markers_of` goes through the whole
    chain like a payload, with ``{n}`` from
    :data:`~probes._payload.placeholders.CALIBRATION_NUMBERS` (the payloads keep 1, 2, 3...);
    the read kept is the first that gives every marker back exactly from its own
    result. Any failure is :class:`CalibrationFailed`, whose ``answer`` says what came
    back: a call that failed (the marker's shape named), a marker that did not come
    back, or came back changed (its kinds named). A call that got no answer is a
    ``TargetError``.
    """
    probe.open()
    if probe.reader is not None:
        return probe.reader.spec
    if probe._split:
        probe.reader = parse_read("text")
        return probe.reader.spec
    sent = markers_of(probe.run_id)
    markers, values, results = [], [], []
    for i, (marker, n) in enumerate(zip(sent, CALIBRATION_NUMBERS, strict=True)):
        if pace is not None:
            pace()
        filled = probe._values(marker, n)
        result = probe._chain(marker, filled)
        if isinstance(result, Observation):
            if i and _refused(result):
                # A parameter that refuses quotes or line breaks (a branch name, a file
                # name), or a setup step that has no resource prepared for this {n}:
                # the read is proved on the markers that went through.
                continue
            raise _failed(result, marker, i)
        # The read-back holds what the calls must leave (the marker, or the marker and
        # its mark after an edit that must apply).
        markers.append(probe.expected.value(filled))
        values.append(filled)
        results.append(result)
    hint = next(
        (
            s
            for path in probe.plan.payload_paths
            for s in reversed(path.segments)
            if isinstance(s, str)
        ),
        None,
    )
    _refuse_errors(probe, results, markers)
    spec, why = locate(results, markers, values, hint=hint)
    if spec is None:
        source = f"read tool {safe(probe.read_tool)!r}" if probe.read_tool else "the tool"
        answered = result_text(results[0], 160) or no_text(results[0])
        if why:
            answer = f"{why}; {source} answered: {answered}"
            message = (
                f"the calibration values came back, but no read gives every one back exactly: "
                f"{answer}; name where the value comes back with read='WHERE'."
            )
        else:
            answer = f"the calibration value did not come back; {source} answered: {answered}"
            message = (
                f"the calibration value {markers[0]!r} did not come back in what {source} "
                f"answered ({answered}); name where it comes back with read='WHERE', or read "
                "it back with read_tool='NAME'."
            )
        raise CalibrationFailed(message, answer=answer)
    probe.reader = parse_read(spec)
    probe.read_found = True
    return spec


def _refuse_errors(probe: McpProbe, results: list[Any], markers: list[str]) -> None:
    """A reply that says the value was not found, does not exist, failed or is invalid
    (with or without an error flag) is an echo of the argument, not a read-back: the
    calibration fails, saying what the tool answered."""
    texts = [" ".join(_texts(r)) for r in results]
    words = error_like(texts, markers)
    if not words:
        return
    source = f"read tool {safe(probe.read_tool)!r}" if probe.read_tool else "the tool"
    answered = next(
        (result_text(r, 160) for r, t in zip(results, texts, strict=True) if t), no_text(results[0])
    )
    answer = f"{source} answered with an error ({safe(words)!r}), not the value: {answered}"
    raise CalibrationFailed(
        f"the calibration values came back only inside an error: {answer}; check the "
        "tool's arguments, or name where the value comes back with read='WHERE'.",
        answer=answer,
    )


def _refused(result: Observation) -> bool:
    """True when a later marker's call was refused (its shape, or its setup step)."""
    return result.status is Status.REJECTED or (
        result.status is Status.BROKEN and result.error_type == "SetupStep"
    )


def _failed(result: Observation, marker: str, n: int) -> CalibrationFailed | TargetError:
    """How the call carrying marker ``n`` failed, as a calibration failure."""
    reason = safe(result.error or result.error_type or result.status.value).rstrip(". ")
    shape = MARKER_SHAPES[n]
    value = f"the plain value {marker!r}" if n == 0 else f"a value with {shape}"
    if result.status in (Status.REJECTED, Status.LOST) or (
        result.status is Status.BROKEN and result.error_type == "SetupStep"
    ):
        return CalibrationFailed(
            f"the calibration call ({value} in place of a payload) failed: {reason}; check "
            "the tool's arguments, or name where the value comes back with read='WHERE'.",
            answer=f"the calibration call ({value}) failed: {reason}",
        )
    return TargetError(
        f"the calibration call ({value} in place of a payload) got no answer: {reason}."
    )
