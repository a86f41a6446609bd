"""``fidelity.errors(server)``: the error contract of an MCP server, in a test.

The fixture's call runs what ``fidelity probe --mcp --errors`` runs
(:func:`fidelity._sweep.errors_run.run_errors`) and fails the test with a short report
(``fidelity.FidelityError``) when a call's verdict other than ``structured`` is beyond
``allow`` (verdict ids: ``error.accepted``...), or when no tool of the server could be
called. It returns the contract otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import FidelityError, TargetError, UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from fidelity._report.errors import ErrorContract

__all__ = ["error_contract"]

#: Calls named in a failure, at most.
_SHOWN = 10


def error_contract(
    server: object,
    *,
    allow: Iterable[str] = (),
    tool: str | None = None,
    yes: bool = False,
    skip_tools: Sequence[str] = (),
    only_tools: Sequence[str] = (),
    timeout: float = 10.0,
) -> ErrorContract:
    """Check ``server`` (its command, a list of words, or its Streamable HTTP URL)."""
    from fidelity._sweep.errors_plan import errors_allow
    from fidelity._sweep.errors_run import ErrorsPlan, run_errors

    if isinstance(server, str):
        target: str | tuple[str, ...] = server
    elif isinstance(server, (list, tuple)) and server and all(isinstance(w, str) for w in server):
        target = tuple(server)
    else:
        raise UsageError(
            f"fidelity.errors takes an MCP server's command (a list of words) or its URL, "
            f"not {safe(repr(server))[:80]}."
        )
    allowed = errors_allow([allow] if isinstance(allow, str) else list(allow))
    shown = target if isinstance(target, str) else " ".join(target)
    plan = ErrorsPlan(
        target=target, name="errors", shown=shown, tool=tool, yes=yes,
        skip_tools=tuple(skip_tools), only_tools=tuple(only_tools), timeout=timeout,
    )  # fmt: skip
    try:
        contract = run_errors(plan)
    except TargetError as exc:
        raise FidelityError(f"the error contract of {safe(shown)}: {exc}") from None
    if not contract.measured:
        raise FidelityError(
            f"the error contract of {safe(shown)}: none of its tools could be called "
            "(pass yes=True to call tools not annotated readOnlyHint: true)."
        )
    beyond = contract.beyond(allowed)
    if beyond:
        lines = [
            f"  {safe(c.tool)} {safe(c.case)}: {c.verdict.value} ({c.why}): {c.excerpt[:100]}"
            for c in beyond[:_SHOWN]
        ]
        more = f"\n  ... and {len(beyond) - _SHOWN} more" if len(beyond) > _SHOWN else ""
        raise FidelityError(
            f"the error contract of {safe(shown)}: {len(beyond)} malformed call"
            f"{'s' if len(beyond) != 1 else ''} answered beyond the allowed verdicts:\n"
            + "\n".join(lines)
            + more
        )
    return contract
