"""param-fidelity: do text parameters survive the chain between caller and tool?

``compare(sent, received)`` names every rewrite in the vocabulary of ``KINDS``;
``survey(target)`` pushes the payload catalogue through a chain and returns the
transformation map and its contract card; ``sweep(mcp=...)`` surveys every string
parameter of a whole MCP server (or OpenAPI document) as ``fidelity probe --all-tools``
does and returns a ``Sweep``; ``surveys_to_html`` draws the map of several
chains as one page. Importing this package stays light: the survey, card, Hypothesis,
httpx and MCP machinery load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fidelity._core.errors import ExitCode, FidelityError, TargetError, UsageError
from fidelity._core.lazy import lazy_exports
from fidelity._core.version import __version__

if TYPE_CHECKING:
    from fidelity._compare.api import Comparison, assert_faithful, compare
    from fidelity._compare.transformation import Transformation
    from fidelity._core.kinds import FAMILIES, KINDS, Kind, Status
    from fidelity._core.payload import Payload
    from fidelity._core.render import safe
    from fidelity._probe.contract import Probe
    from fidelity._probe.observation import Direction, Hop, Observation
    from fidelity._report.card import Card
    from fidelity._report.hints import Hint
    from fidelity._report.outcomes import FamilyOutcome
    from fidelity._survey.page import surveys_to_html
    from fidelity._survey.result import Survey
    from fidelity._survey.run import survey
    from fidelity._sweep.api import sweep
    from fidelity._sweep.result import Sweep, SweepRow


__all__ = [
    "FAMILIES",
    "KINDS",
    "Card",
    "Comparison",
    "Direction",
    "ExitCode",
    "FamilyOutcome",
    "FidelityError",
    "Hint",
    "Hop",
    "Kind",
    "Observation",
    "Payload",
    "Probe",
    "Status",
    "Survey",
    "Sweep",
    "SweepRow",
    "TargetError",
    "Transformation",
    "UsageError",
    "__version__",
    "assert_faithful",
    "compare",
    "safe",
    "survey",
    "surveys_to_html",
    "sweep",
]

# Every name but the exceptions loads its module on first use: the pytest plugin lives
# in this package, so this file runs in every pytest session of every user's repo.
_MODULES = {
    "fidelity._report.card": ("Card",),
    "fidelity._report.hints": ("Hint",),
    "fidelity._compare.api": ("Comparison", "assert_faithful", "compare"),
    "fidelity._compare.transformation": ("Transformation",),
    "fidelity._core.kinds": ("FAMILIES", "KINDS", "Kind", "Status"),
    "fidelity._probe.observation": ("Direction", "Hop", "Observation"),
    "fidelity._core.payload": ("Payload",),
    "fidelity._probe.contract": ("Probe",),
    "fidelity._core.render": ("safe",),
    "fidelity._report.outcomes": ("FamilyOutcome",),
    "fidelity._survey.result": ("Survey",),
    "fidelity._survey.run": ("survey",),
    "fidelity._survey.page": ("surveys_to_html",),
    "fidelity._sweep.api": ("sweep",),
    "fidelity._sweep.result": ("Sweep", "SweepRow"),
}


__getattr__, __dir__ = lazy_exports(__name__, _MODULES, globals())
