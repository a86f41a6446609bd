"""The error contract of a server: how each tool answers malformed calls, as data.

``fidelity probe --errors`` makes a fixed set of malformed calls per tool (a required
argument missing, a string given a number, an extra argument, a value outside a
declared constraint, an empty object; one call to a tool that does not exist) and
gives each answer one :class:`Verdict`. This module holds the records
(:class:`ErrorCall`, :class:`ErrorContract`), what fails a run (:meth:`ErrorContract.beyond`,
with the verdict ids of ``--allow``: :data:`ERROR_VERDICTS`), the JSON document and
the drift of a run from the contract a card committed (:func:`contract_drift`). The
renderers are :mod:`fidelity._report.errors_render`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

__all__ = [
    "ERROR_VERDICTS",
    "ErrorCall",
    "ErrorContract",
    "ErrorSkip",
    "Verdict",
    "contract_drift",
    "verdict_id",
]


class Verdict(StrEnum):
    """How a tool answered one malformed call (best first)."""

    #: A JSON-RPC error, or ``isError: true`` with a text that names the argument or
    #: the problem, at most 2,000 characters, without a stack trace, a file path or an
    #: exception dump.
    STRUCTURED = "structured"
    #: Refused (``isError: true``), but the text does not say what was wrong.
    UNNAMED = "unnamed"
    #: Refused with a stack trace, a file path, an exception dump, or more than 2,000
    #: characters.
    LEAKY = "leaky"
    #: The invalid call was answered as a success.
    ACCEPTED = "accepted"
    #: The session or the server process died.
    CRASHED = "crashed"
    #: No answer within the timeout.
    TIMEOUT = "timeout"


def verdict_id(verdict: Verdict) -> str:
    """The id of ``verdict`` in ``--allow`` (``error.accepted``...)."""
    return f"error.{verdict.value}"


#: The verdict ids ``--allow`` takes (every verdict but ``structured``), with their summary.
ERROR_VERDICTS: Mapping[str, str] = MappingProxyType(
    {
        "error.unnamed": "refused, but the answer does not say what was wrong",
        "error.leaky": "refused with a stack trace, a file path, an exception dump, or "
        "more than 2,000 characters",
        "error.accepted": "an invalid call answered as a success",
        "error.crashed": "the session or the server process died",
        "error.timeout": "no answer within the timeout",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorCall:
    """One malformed call and its verdict.

    ``case`` names the call (``missing:path``, ``type:text``, ``extra``, ``enum:color``,
    ``minLength:name``, ``maxLength:name``, ``pattern:id``, ``empty``,
    ``unknown-tool``); ``answer`` how it came back (``result``, ``isError``,
    ``rpc-error CODE``, ``crashed``, ``timeout``...); ``why`` the reason for the verdict
    in a few words; ``excerpt`` the start of the answer, secrets masked and
    terminal-safe; ``length`` the answer's length in characters.
    """

    tool: str
    case: str
    verdict: Verdict
    answer: str = ""
    why: str = ""
    excerpt: str = ""
    length: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The call as the JSON result holds it."""
        return {
            "tool": self.tool,
            "case": self.case,
            "verdict": self.verdict.value,
            "answer": self.answer,
            "why": self.why,
            "excerpt": self.excerpt,
            "length": self.length,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorSkip:
    """A tool no malformed call was made to, and why (consent, left out, no case)."""

    tool: str
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorContract:
    """The error contract of one target: ``name`` its card block's, ``server`` its name
    in a ``--config`` file (``""`` for a target given alone), ``calls`` in the order
    made, ``skipped`` the tools not called; ``failure`` the sentence when the target
    could not be reached."""

    name: str
    target: str
    server: str = ""
    calls: tuple[ErrorCall, ...] = ()
    skipped: tuple[ErrorSkip, ...] = ()
    failure: str = ""
    environment: Mapping[str, str] = field(default_factory=dict)
    #: The verdict ids the run was given to let pass (``fidelity.sweep(allow=...)``).
    allow: tuple[str, ...] = ()

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools called, in order (the unknown tool's call under its made-up name)."""
        return tuple(dict.fromkeys(c.tool for c in self.calls))

    @property
    def counts(self) -> dict[str, int]:
        """How many calls got each verdict (every verdict, zero included), best first."""
        found = Counter(c.verdict for c in self.calls)
        return {v.value: found.get(v, 0) for v in Verdict}

    @property
    def measured(self) -> bool:
        """True when at least one listed tool was called (the unknown tool's call alone
        does not count)."""
        return any(c.case != "unknown-tool" for c in self.calls)

    def beyond(self, allow: Iterable[str]) -> tuple[ErrorCall, ...]:
        """The calls whose verdict is neither ``structured`` nor allowed by an id of
        ``allow`` (``error.accepted``...)."""
        allowed = set(allow)
        return tuple(
            c
            for c in self.calls
            if c.verdict is not Verdict.STRUCTURED and verdict_id(c.verdict) not in allowed
        )

    def exit_code(self, allow: Iterable[str] | None = None) -> int:
        """What ``fidelity probe --errors`` exits with: 3 when the target could not be
        reached or none of its tools was called, 1 when a verdict is beyond ``allow``
        (by default the contract's own ``allow``), else 0."""
        if self.failure or not self.measured:
            return 3
        return 1 if self.beyond(self.allow if allow is None else allow) else 0

    def to_dict(self, allow: Sequence[str] = ()) -> dict[str, Any]:
        """The contract as the JSON result holds it."""
        return {
            "name": self.name,
            **({"server": self.server} if self.server else {}),
            "target": self.target,
            "environment": dict(self.environment),
            "counts": self.counts,
            "allow": list(allow),
            "beyond_allow": len(self.beyond(allow)),
            "calls": [c.to_dict() for c in self.calls],
            "skipped": [{"tool": s.tool, "why": s.why} for s in self.skipped],
            **({"failure": self.failure} if self.failure else {}),
        }


def contract_drift(
    run: Iterable[tuple[str, str, str]], committed: Iterable[tuple[str, str, str]]
) -> tuple[str, ...]:
    """The lines that say how ``run`` differs from ``committed``: each a sequence of
    (tool, case, verdict); a call whose verdict changed, a call the card does not have,
    a call of the card the run did not make."""
    now = {(tool, case): verdict for tool, case, verdict in run}
    then = {(tool, case): verdict for tool, case, verdict in committed}
    lines = []
    for key, verdict in now.items():
        tool, case = key
        if key not in then:
            lines.append(f"{tool} {case}: {verdict} (not in the card)")
        elif then[key] != verdict:
            lines.append(f"{tool} {case}: {then[key]} in the card, {verdict} now")
    for key, verdict in then.items():
        if key not in now:
            lines.append(f"{key[0]} {key[1]}: {verdict} in the card, not called now")
    return tuple(lines)
