"""Locating an MCP probe's read-back: one call of the whole chain carrying a plain marker.

:func:`calibrate` is what :meth:`probes._mcp.probe.McpProbe.calibrate` does; a marker
that does not come back, or a chain that refuses it, is :class:`CalibrationFailed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.observation import Observation
from probes._mcp.read import locate, parse_read, result_text
from probes._payload.locate import marker_of

if TYPE_CHECKING:
    from probes._mcp.probe import McpProbe

__all__ = ["CalibrationFailed", "calibrate"]


class CalibrationFailed(UsageError):
    """The calibration call did not show where the value comes back (it failed, or the
    marker was not in the answer); ``answer`` says what came back instead, in one
    clause without advice (terminal-safe)."""

    def __init__(self, message: str, *, answer: str) -> None:
        super().__init__(message)
        self.answer = answer


def calibrate(probe: McpProbe) -> str:
    """Locate the read-back of ``probe`` (see :meth:`McpProbe.calibrate`)."""
    probe.open()
    if probe.reader is not None:
        return probe.reader.spec
    if probe._split:
        probe.reader = parse_read("text")
        return probe.reader.spec
    marker = marker_of(probe.run_id)
    result = probe._chain(marker, probe._values(marker, 0))
    if isinstance(result, Observation):
        reason = safe(result.error or result.error_type or result.status.value).rstrip(". ")
        if result.status in (Status.REJECTED, Status.LOST) or (
            result.status is Status.BROKEN and result.error_type == "SetupStep"
        ):
            raise CalibrationFailed(
                f"the calibration call (the plain value {marker!r} in place of a payload) "
                f"failed: {reason}; check the tool's arguments, or name where the value "
                "comes back with read='WHERE'.",
                answer=f"the calibration call failed: {reason}",
            )
        raise TargetError(f"the calibration call got no answer: {reason}.")
    spec = locate(result, marker)
    if spec is None:
        source = f"read tool {safe(probe.read_tool)!r}" if probe.read_tool else "the tool"
        answered = result_text(result, 160) or _no_text(result)
        raise CalibrationFailed(
            f"the calibration value {marker!r} did not come back in what {source} "
            f"answered ({answered}); name where "
            "it comes back with read='WHERE', or read it back with read_tool='NAME'.",
            answer=f"the calibration value did not come back; {source} answered: {answered}",
        )
    probe.reader = parse_read(spec)
    probe.read_found = True
    return spec


def _no_text(result: Any) -> str:
    """What a result without text content holds instead (its content items' types)."""
    kinds = [safe(str(getattr(item, "type", "?")))[:40] for item in result.content or ()][:5]
    structured = " and structured content" if result.structured_content is not None else ""
    return f"no text content, only {', '.join(kinds) or 'nothing'}{structured}"
