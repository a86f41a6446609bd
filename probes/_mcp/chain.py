"""The calls of one MCP observation: setup steps, the payload tool, the read tool.

:func:`chain` makes the calls of one payload and gives the result to read the value
from, or how the chain failed as an ``Observation``; :func:`observe_tool` reads the
value back from it. Against the reference reflector, :func:`observe_request` and
:func:`observe_response` measure the two directions apart (``reflect`` answers the
armored value it received; ``emit`` answers the value it was given to send).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Protocol

from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import observe_value
from fidelity._probe.observation import Direction, Observation
from probes._mcp.read import no_text, parse_read, result_text
from probes._payload.locate import STALE_READ, is_marker
from probes._payload.placeholders import Filled

if TYPE_CHECKING:
    from probes._mcp.call import CallStep
    from probes._mcp.calls import CallPlan
    from probes._mcp.read import Reader
    from probes._payload.expect import Expectation


class McpProbe(Protocol):
    """What the calls of one observation need of the probe that makes them."""

    tool: str
    read_tool: str | None
    reader: Reader | None
    timeout: float
    expected: Expectation
    _calls: CallStep

    @property
    def plan(self) -> CallPlan: ...

    @property
    def tolerates_timeouts(self) -> bool: ...

    @property
    def connected(self) -> bool: ...


__all__ = [
    "EMIT_TOOL",
    "REFLECT_TOOL",
    "chain",
    "observe_request",
    "observe_response",
    "observe_tool",
]

#: What a lost observation quotes of the tool's answer, in code points.
_EXCERPT = 160

#: The reference reflector's tools: ``reflect`` answers what it received, ``emit`` sends.
REFLECT_TOOL = "reflect"
EMIT_TOOL = "emit"


def chain(probe: McpProbe, text: str, values: Filled, answers: list[str] | None = None) -> Any:
    """The setup steps, the payload tool, the read tool: the result to read the value
    from, or how the chain failed as an ``Observation``. The payload tool's answer (its
    text, bounded and terminal-safe) is appended to ``answers`` when given."""
    plan = probe.plan
    for i, step in enumerate(plan.steps, 1):
        done = _step(probe, text, i, step.tool, step.arguments.fill(values))
        if done is not None:
            return done
    arguments = plan.arguments(values)
    result = probe._calls.call(text, probe.tool, arguments, Direction.ROUND_TRIP)
    if isinstance(result, Observation):
        if result.status is Status.TIMEOUT and probe.read_tool is not None:
            return _effect_after(probe, result, values, arguments)
        return result
    if result.is_error:
        return _rejected(text, result, Direction.ROUND_TRIP)
    if answers is not None:
        answers.append(result_text(result) or no_text(result))
    if probe.read_tool is not None:
        read_arguments = plan.read_arguments(values, arguments)
        result = probe._calls.call(text, probe.read_tool, read_arguments, Direction.ROUND_TRIP)
        if isinstance(result, Observation):
            return dataclasses.replace(result, error=f"read tool: {result.error}")
        if result.is_error:
            return _rejected(text, result, Direction.ROUND_TRIP, prefix="read tool: ")
    return result


def _effect_after(
    probe: McpProbe, timed_out: Observation, values: Filled, arguments: dict[str, Any]
) -> Observation:
    """A payload call that timed out on a tool that may write: read back once.

    Only when the session still answers (the health check passed) and the read-back
    is known; the read tool is called once, never the payload tool again. The
    observation stays a ``timeout``, with ``effect`` ``landed`` (the value read back
    is the payload, or a rewrite of it that the kinds explain), ``absent`` (the read
    answered without it) or ``unknown`` (no read was possible, or it failed).
    """
    if probe.tolerates_timeouts:
        return timed_out
    text = timed_out.sent
    effect, why = "unknown", "not possible, the session no longer answers"
    if probe.connected and probe.reader is not None:
        read_arguments = probe.plan.read_arguments(values, arguments)
        result = probe._calls.call(text, str(probe.read_tool), read_arguments, Direction.ROUND_TRIP)
        if isinstance(result, Observation):
            why = f"the read tool did not answer ({result.status.value})"
        elif result.is_error:
            why = f"the read tool answered an error: {result_text(result, 120)}"
        else:
            found, value, _ = probe.reader.read(result, values)
            seen = observe_value(text, value) if found else None
            if (
                seen is not None
                and (
                    seen.status is Status.PRESERVED
                    or (seen.comparison is not None and seen.comparison.explained)
                )
                and "unknown" not in seen.kinds
            ):
                effect, why = "landed", "the value is there"
            else:
                effect, why = "absent", "the value is not there"
    error = f"no answer within {probe.timeout:g}s; read back once afterwards: {why}"
    return dataclasses.replace(timed_out, effect=effect, error=f"{error} (effect: {effect})")


def _step(
    probe: McpProbe, text: str, i: int, tool: str, arguments: dict[str, Any]
) -> Observation | None:
    """Call setup step ``i``; ``None`` when it worked, else the payload's observation.

    A step that fails makes the payload ``broken``, naming the step (a step is
    never retried); one that timed out is a ``timeout``; a value the client library
    cannot encode stays the client's refusal (``rejected``, ``client_side``).
    """
    name = f"setup step {i} ({safe(tool)})"
    result = probe._calls.call(text, tool, arguments, Direction.ROUND_TRIP)
    if isinstance(result, Observation):
        if result.client_side or result.status in (Status.TIMEOUT, Status.BROKEN):
            return dataclasses.replace(result, error=f"{name}: {result.error}")
        return dataclasses.replace(
            result,
            status=Status.BROKEN,
            error_type="SetupStep",
            error=f"{name} failed: {result.error_type}: {result.error}",
        )
    if result.is_error:
        return Observation(
            sent=text,
            status=Status.BROKEN,
            error_type="SetupStep",
            error=f"{name} failed: {result_text(result) or 'an error without text'}",
        )
    return None


def observe_tool(probe: McpProbe, text: str, values: Filled) -> Observation:
    """One payload's calls and the value read back, judged against ``probe.expected``."""
    answers: list[str] = []
    result = chain(probe, text, values, answers)
    if isinstance(result, Observation):
        return result
    assert probe.reader is not None
    direction = probe.reader.direction
    found, value, why = probe.reader.read(result, values)
    if is_marker(value) and not is_marker(text):
        found, why = False, STALE_READ
    if not found:
        # What came back, always: a lost value quotes the answer it was looked for in.
        answered = result_text(result, _EXCERPT) or no_text(result)
        return Observation(
            sent=text,
            status=Status.LOST,
            error_type="lost",
            error=f"{why.rstrip('.')}; what came back: {answered}",
            direction=direction,
        )
    return probe.expected.judge(
        text,
        value,
        values,
        direction=direction,
        answer=answers[0] if answers else "",
        tool=safe(probe.tool),
    )


def observe_request(probe: McpProbe, text: str) -> Observation:
    from fidelity._core.armor import unarmor

    result = probe._calls.call(text, REFLECT_TOOL, {"text": text}, Direction.REQUEST)
    if isinstance(result, Observation):
        return result
    if result.is_error:
        return _rejected(text, result, Direction.REQUEST)
    try:
        received = unarmor(result.structured_content)
    except UsageError as exc:
        return Observation(
            sent=text,
            status=Status.LOST,
            error_type="lost",
            error=f"the reflector's answer has no armored value ({exc})",
            direction=Direction.REQUEST,
        )
    return observe_value(text, received, direction=Direction.REQUEST)


def observe_response(probe: McpProbe, text: str) -> Observation:
    from fidelity._core.armor import armor

    result = probe._calls.call(text, EMIT_TOOL, {"value": armor(text)}, Direction.RESPONSE)
    if isinstance(result, Observation):
        return result
    if result.is_error:
        return _rejected(text, result, Direction.RESPONSE)
    found, value, why = parse_read("text").read(result)
    if not found:
        return Observation(
            sent=text,
            status=Status.LOST,
            error_type="lost",
            error=why,
            direction=Direction.RESPONSE,
        )
    return observe_value(text, value, direction=Direction.RESPONSE)


def _rejected(text: str, result: Any, direction: Direction, prefix: str = "") -> Observation:
    return Observation(
        sent=text,
        status=Status.REJECTED,
        error_type="isError",
        error=prefix + (result_text(result) or "the tool reported an error without text"),
        direction=direction,
    )
