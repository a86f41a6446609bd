"""What ``fidelity probe`` prints of a run over many rows (``--all-tools``,
``--openapi``): the terminal is the CLI's listener of the run's events; the library's
:func:`fidelity.sweep` listens with a record instead and prints nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._run.events import Handler
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows import Listen
    from fidelity._sweep.rows_model import Rows

__all__ = ["terminal"]


def terminal(plan: ProbePlan) -> Listen:
    """The terminal of a run over many rows: the map and the lines, when it is done."""

    def listen(inv: Rows, payloads: Sequence[Payload], noun: str) -> Sequence[Handler]:
        from fidelity._sweep.rows_verdict import RowsPrinter

        return (RowsPrinter(plan, inv, payloads, noun),)

    return listen
