"""Reading every value back once more after a stdio server restarted: what changed
only then (a server that rewrites a value when it loads it again from its files).

:func:`read_after_restart` ends the probe's session in good order (the server process
exits, as on a restart), lets the next call start the server again, and calls the read
tool once more for each payload read back, with the arguments of its first read (the
same ``{n}``, ``{run}``, ``{payload}``). An observation whose value now reads
differently is the read after the restart, both reads as its hops; a value that can no
longer be read back is ``lost``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._probe.observation import Direction, Hop, Observation

if TYPE_CHECKING:
    from probes._mcp.probe import McpProbe

__all__ = ["read_after_restart"]

_READ = (Status.PRESERVED, Status.TRANSFORMED)


def read_after_restart(probe: McpProbe, observations: Sequence[Observation]) -> list[Observation]:
    """``observations`` with each value read back once more, after the server restarted."""
    if probe.transport != "stdio" or probe.read_tool is None or probe.reader is None:
        raise UsageError(
            "a read after a restart restarts a stdio server the run started and calls its "
            "read tool again: give --read-tool (and a stdio server command)."
        )
    sessions = probe._sessions
    session = sessions.session
    if session is not None:
        session.close()  # the server exits, as on a restart; the next call starts it again
        sessions.session = None
    out: list[Observation] = []
    for before in observations:
        n = probe.numbers.get(before.sent)
        if before.status not in _READ or n is None:
            out.append(before)
            continue
        out.append(_again(probe, before, n))
    return out


def _again(probe: McpProbe, before: Observation, n: int) -> Observation:
    assert probe.read_tool is not None
    assert probe.reader is not None
    text = before.sent
    values = probe._values(text, n)
    plan = probe.plan
    arguments = plan.read_arguments(values, plan.arguments(values))
    result = probe._calls.call(text, probe.read_tool, arguments, Direction.ROUND_TRIP)
    if isinstance(result, Observation):
        return _lost(before, result.error or result.error_type)
    found, value, why = probe.reader.read(result, values)
    if not found:
        return _lost(before, why)
    after = probe.expected.judge(text, value, values, direction=before.direction)
    if after.received == before.received and after.status is before.status:
        return before
    hops = (
        Hop(name="read back before the restart", value=before.received),
        Hop(name="read back after the restart", value=after.received),
    )
    return dataclasses.replace(
        after,
        payload_id=before.payload_id,
        families=before.families,
        hops=hops,
        blame="the restart",
    )


def _lost(before: Observation, why: str) -> Observation:
    return dataclasses.replace(
        before,
        status=Status.LOST,
        received=None,
        comparison=None,
        error_type="AfterRestart",
        error=f"after the restart the value could not be read back ({why.rstrip('.')}).",
    )
