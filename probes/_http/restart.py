"""Reading every value back once more after the service restarted: what changed only
then (a store that rewrites a value when it reloads it from disk).

:func:`restart_service` runs the user's restart command (bounded) and waits until the
target accepts connections again; :func:`read_again` repeats each payload's read-back
(``read_url``, with the same ``{n}``, ``{id}`` and ``{payload}``) and gives each
observation whose value now reads differently as the value read after the restart,
the two reads as its hops. A value that can no longer be read back is ``lost``.
"""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import httpx

from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.observation import Hop, Observation
from probes._http.exchange import ExchangeFailure

if TYPE_CHECKING:
    from probes._http.probe import HttpProbe

__all__ = ["read_after_restart", "read_again", "restart_service"]

#: How long the restart command may run, and how long the service may take to answer.
_COMMAND_BOUND = 120.0
_UP_BOUND = 60.0
_READ = (Status.PRESERVED, Status.TRANSFORMED)


def restart_service(command: str, url: str) -> None:
    """Run ``command`` in a shell (bounded; its output kept off the terminal), then
    wait until ``url``'s host accepts a connection again; a ``TargetError`` when the
    command fails or the service does not come back."""
    try:
        done = subprocess.run(
            ["sh", "-c", command], capture_output=True, timeout=_COMMAND_BOUND, check=False
        )
    except subprocess.TimeoutExpired:
        raise TargetError(
            f"the restart command did not end within {_COMMAND_BOUND:g}s; nothing was read "
            "back after it."
        ) from None
    if done.returncode != 0:
        tail = safe(done.stderr.decode("utf-8", "replace").strip()[-200:])
        raise TargetError(
            f"the restart command ended with exit {done.returncode}"
            f"{f' ({tail})' if tail else ''}; nothing was read back after it."
        )
    parsed = httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    ends = time.monotonic() + _UP_BOUND
    while True:
        try:
            with socket.create_connection((parsed.host, port), timeout=2):
                return
        except OSError:
            if time.monotonic() > ends:
                raise TargetError(
                    f"the service at {safe(parsed.host)}:{port} did not accept a connection "
                    f"within {_UP_BOUND:g}s of the restart."
                ) from None
            time.sleep(0.1)


def read_again(probe: HttpProbe, observations: Sequence[Observation]) -> list[Observation]:
    """``observations`` with each value read back once more; one that now reads
    differently is the read after the restart (its hops: the value before and after)."""
    from probes._http.readback import read_observation

    out: list[Observation] = []
    for before in observations:
        key = probe.reads.get(before.sent)
        if before.status not in _READ or key is None:
            out.append(before)
            continue
        n, ident = key
        try:
            reply = probe.read_back_again(n, ident, before.sent)
        except ExchangeFailure as failure:
            out.append(_lost(before, failure.error))
            continue
        if reply.status >= 400:
            out.append(_lost(before, f"HTTP {reply.status} {reply.response.reason_phrase}"))
            continue
        after = read_observation(probe.read, before.sent, reply, expected=probe.options.expected)
        if after.received == before.received and after.status is before.status:
            out.append(before)
            continue
        hops = (
            Hop(name="read back before the restart", value=before.received),
            Hop(name="read back after the restart", value=after.received),
        )
        out.append(
            dataclasses.replace(
                after,
                payload_id=before.payload_id,
                families=before.families,
                wire=before.wire,
                hops=hops,
                blame="the restart",
            )
        )
    return out


def _lost(before: Observation, why: str) -> Observation:
    return dataclasses.replace(
        before,
        status=Status.LOST,
        received=None,
        comparison=None,
        error_type="AfterRestart",
        error=f"after the restart the value could not be read back ({why.rstrip('.')}).",
    )


def read_after_restart(
    probe: object, command: str, observations: Sequence[Observation]
) -> list[Observation]:
    """Restart the service ``probe`` (an HTTP probe with ``read_url``) measured with
    ``command``, then read every value back once more (:func:`read_again`)."""
    from probes._http.probe import HttpProbe

    if not isinstance(probe, HttpProbe) or probe.read_url is None:
        raise TargetError(
            "a read after a restart needs an HTTP probe that reads back with read_url."
        )
    restart_service(command, probe.url)
    return read_again(probe, observations)
