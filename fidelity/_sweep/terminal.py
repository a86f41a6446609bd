"""What the terminal of a one-tool run is shown (:class:`Shown`, the outcome of its
:class:`~fidelity._run.events.RunDone`: the CLI's map printer prints it) and its
summary line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fidelity._survey.result import Survey

__all__ = ["Shown", "summary_line"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """What a one-tool run shows: its ``survey`` (a cut one when it stopped), the
    summary's ``note`` and the run's ``warnings``."""

    survey: Survey
    note: str = ""
    warnings: tuple[str, ...] = ()


def summary_line(survey: Survey) -> str:
    counts = ", ".join(f"{n} {s.value}" for s, n in survey.statuses.items() if n)
    count = len(survey.observations)
    line = f"{count} payload{'' if count == 1 else 's'}: {counts or 'none'}"
    client = sum(1 for o in survey.observations if o.client_side)
    if client:
        line += f" ({client} failed in the client library before reaching the target)"
    silent = sum(1 for o in survey.observations if o.silent)
    if silent:
        line += f" ({silent} not applied, without an error flag)"
    return line
