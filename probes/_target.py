"""Built-in survey targets: named chains that ``fidelity survey`` runs by default."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from fidelity._probe.contract import Probe

__all__ = ["BuiltinTarget"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuiltinTarget:
    """A chain this environment can survey.

    ``open()`` returns a context manager that starts whatever the chain needs (a
    reflector subprocess, a session) and yields the probe; leaving it stops
    everything. ``unavailable`` is a one-sentence reason when the chain cannot run
    here (a missing optional library), and ``open`` must then not be called.
    ``group`` names the kind of chain (``serialization``, ``files and processes``,
    ``HTTP``, ``MCP``) so a report can show chains of one kind together.
    """

    name: str
    description: str
    open: Callable[[], AbstractContextManager[Probe]]
    unavailable: str = ""
    group: str = ""
