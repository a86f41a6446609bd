"""A survey that measured nothing: every payload rejected, lost, timed out or broken.

Such a survey finds no rewrite, so without this check its test would pass green while
nothing crossed the chain (a server whose every call fails, a read-back located
wrongly). It fails in one line that counts the outcomes and quotes the first error,
unless the test says those outcomes are expected (``accept=[...]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe

if TYPE_CHECKING:
    from fidelity._survey.result import Survey

__all__ = ["accepted_outcomes", "nothing_measured"]

#: The outcomes in which a value arrived and was compared.
_MEASURED = frozenset({Status.PRESERVED, Status.TRANSFORMED})
#: The longest piece of an error quoted.
_ERROR_CHARS = 200


def accepted_outcomes(accept: Iterable[str]) -> frozenset[str]:
    """The outcomes named in ``accept`` (a name or a list of them), checked."""
    values = [accept] if isinstance(accept, str) else list(accept)
    valid = [s.value for s in Status if s not in _MEASURED]
    bad = [v for v in values if v not in valid]
    if bad:
        raise UsageError(
            f"accept names unknown outcome(s) {', '.join(map(repr, bad))}; "
            f"the outcomes it can accept are: {', '.join(valid)}."
        )
    return frozenset(values)


def nothing_measured(chain: str, result: Survey, accepted: frozenset[str]) -> str | None:
    """The failure line of a survey of ``chain`` in which no payload was measured, or
    ``None`` (something was measured, nothing was sent, or every outcome is accepted)."""
    counts = {str(s): n for s, n in result.statuses.items() if n}
    total = sum(counts.values())
    if not total or any(counts.get(str(s)) for s in _MEASURED):
        return None
    if result.kinds or any(p.status in _MEASURED for o in result.observations for p in o.parts):
        return None  # a path measured apart (a reflector's request or response) arrived
    if set(counts) <= accepted:
        return None
    first = next((o for o in result.observations if o.status not in _MEASURED), None)
    error = ""
    if first is not None:
        text = f"{first.error_type}: {first.error}".strip(": ") or "no error text"
        where = f"{first.payload_id}: " if first.payload_id else ""
        error = f"; first error ({safe(where)}{first.status!s}): {safe(text[:_ERROR_CHARS])}"
    outcomes = ", ".join(f"{s} {n}" for s, n in counts.items())
    listed = ", ".join(f'"{s}"' for s in counts)
    return (
        f"the chain {safe(chain)!s} measured nothing: none of {total} payloads arrived to be "
        f"compared ({outcomes}){error}\n"
        f"if these outcomes are expected: fidelity.survey(..., accept=[{listed}])"
    )
