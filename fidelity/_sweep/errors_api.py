"""``fidelity.sweep(..., errors=True)``: the error contract of a whole target, from
Python, returning the :class:`~fidelity._report.errors.ErrorContract` and printing
nothing. The options are checked as ``fidelity probe --errors`` checks them."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence

from fidelity._core.errors import UsageError
from fidelity._report.errors import ErrorContract

__all__ = ["errors_of"]

#: The options of a payload sweep that an error-contract run does not take.
_PAYLOADS_ONLY = ("families", "clients", "examples", "seed", "rate")


def errors_of(
    options: argparse.Namespace, base_url: str | None, *, allow: Sequence[str]
) -> ErrorContract:
    """The contract of the MCP server (``options.target``) or of the API of the
    ``options.openapi`` document, as the option values of :func:`fidelity.sweep` plan
    it; ``allow`` is kept in it. A bad option is a ``UsageError``, a target that
    cannot be reached a ``TargetError``."""
    from fidelity._sweep.errors_plan import errors_plan
    from fidelity._sweep.errors_run import run_errors
    from fidelity._sweep.isolation import sandboxed

    given = [name for name in _PAYLOADS_ONLY if getattr(options, name, None)]
    if given:
        raise UsageError(
            f"sweep(errors=True) makes malformed calls, not payloads: {', '.join(given)}= "
            "does not apply to it."
        )
    if options.openapi is not None:
        return dataclasses.replace(_openapi(options, base_url), allow=tuple(allow))
    plan, run, _ = errors_plan(options)
    with sandboxed(plan.sandbox):
        return dataclasses.replace(run_errors(run), allow=tuple(allow))


def _openapi(options: argparse.Namespace, base_url: str | None) -> ErrorContract:
    from fidelity._sweep.errors_http import openapi_errors
    from fidelity._sweep.openapi_run import openapi_target
    from fidelity._sweep.plan import plan_from_args

    openapi = openapi_target(options, base_url)
    plan = plan_from_args(options)
    return openapi_errors(plan, openapi, name="errors")
