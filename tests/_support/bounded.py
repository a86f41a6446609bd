"""Run ``fidelity`` as a user would, but fenced: an address-space limit
(``RLIMIT_AS``, as ``ulimit -v``) and a timeout, so a regression against a hostile
input fails fast with a sentence saying what hung, instead of eating the machine or
hanging the suite."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from _support.cli import FIDELITY

__all__ = ["MIB", "fidelity_bounded"]

MIB = 1024 * 1024


def _limit(memory: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def fidelity_bounded(
    *args: str,
    memory: int = 400 * MIB,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``fidelity ARGS...`` in a subprocess limited to ``memory`` bytes of address
    space and ``timeout`` seconds; a run that does not end in time fails the test
    naming the command (its process is killed first)."""
    try:
        return subprocess.run(
            [*FIDELITY, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            timeout=timeout,
            check=False,
            preexec_fn=lambda: _limit(memory),
            env=None if env is None else {**os.environ, **env},
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"fidelity {' '.join(args)} did not end within {timeout:g}s: it hung"
        ) from None
