"""The HTTP options of ``fidelity probe`` that read like curl and httpie: retries of
answers that mean "not now".

:func:`register` adds them to the parser's target group; :func:`plan_fields` checks
them against the kind of target and gives the :class:`ProbePlan` fields they set.
"""

from __future__ import annotations

import argparse
from typing import Any

from fidelity._core.errors import UsageError

__all__ = ["plan_fields", "register"]

#: ``--retries`` when not given, and the most it takes.
DEFAULT_RETRIES = 2
_MAX_RETRIES = 10


def register(group: Any) -> None:
    """Add the options to ``group`` (the ``target`` group of ``fidelity probe``)."""
    group.add_argument(
        "--retries",
        metavar="N",
        help="HTTP: send a request again up to N times (default 2) when it is answered 429 "
        "or 503, or its connection is reset before the answer began, for GET, HEAD, PUT, "
        "DELETE and OPTIONS; Retry-After is honoured up to --timeout (0: never)",
    )
    group.add_argument(
        "--retry-writes",
        action="store_true",
        help="HTTP: retry a POST or PATCH too (it may then take effect twice); without it, "
        "its answer stands and says the server refused it for now",
    )


def _count(option: str, value: str | None, default: int, most: int) -> int:
    if value is None:
        return default
    try:
        number = int(value.strip(), 10)
    except ValueError:
        number = -1
    if not 0 <= number <= most:
        raise UsageError(f"{option} {value!r} is not a whole number from 0 to {most}.")
    return number


def plan_fields(args: argparse.Namespace, http: bool) -> dict[str, Any]:
    """The plan's fields these options set; for an MCP target (``http`` false) any of
    them given is a usage error."""
    retries = getattr(args, "retries", None)
    retry_writes = bool(getattr(args, "retry_writes", False))
    if not http:
        given = [o for o, v in (("--retries", retries), ("--retry-writes", retry_writes)) if v]
        if given:
            raise UsageError(
                f"{' and '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to HTTP "
                "targets; an MCP call that timed out or failed is never sent again."
            )
        return {}
    return {
        "retries": _count("--retries", retries, DEFAULT_RETRIES, _MAX_RETRIES),
        "retry_writes": retry_writes,
    }
