"""A tool's input schema as a contract: the payloads a parameter's schema rules out.

A string parameter may declare ``minLength``, ``maxLength`` or a ``pattern``: a server
that validates its arguments refuses a payload outside them, often without an error
flag ("Invalid arguments ... too_small"), which a sweep would count as ``lost`` or
``rejected`` although the server did what its schema says. Such payloads are not
sent: :func:`within_schema` keeps the others, and the row says how many were left out
and why ("22 payloads outside the schema (minLength 10), not sent").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from probes.frontend import ToolParam

__all__ = ["outside_line", "within_schema"]


def _limits(schemas: Sequence[Mapping[str, Any]]) -> tuple[int, int | None, re.Pattern[str] | None]:
    low, high, pattern = 0, None, None
    for schema in schemas[:1]:
        if isinstance(schema.get("minLength"), int):
            low = schema["minLength"]
        if isinstance(schema.get("maxLength"), int):
            high = schema["maxLength"]
        if isinstance(schema.get("pattern"), str):
            try:
                pattern = re.compile(schema["pattern"])
            except (re.error, RecursionError):
                pattern = None
    return low, high, pattern


def _why(low: int, high: int | None, pattern: re.Pattern[str] | None) -> str:
    said = [f"minLength {low}"] if low else []
    said += [f"maxLength {high}"] if high is not None else []
    said += ["its pattern"] if pattern is not None else []
    return ", ".join(said)


def within_schema(param: ToolParam, payloads: Sequence[Payload]) -> tuple[list[Payload], int, str]:
    """The ``payloads`` ``param``'s schema allows (its length bounds, counted in code
    points as JSON Schema counts them, and its pattern), how many it rules out, and
    the constraints that did (``"minLength 10"``)."""
    from probes.frontend import schema_at

    schemas = schema_at(param.tool.input_schema, param.path) or []
    low, high, pattern = _limits(schemas)
    if not low and high is None and pattern is None:
        return list(payloads), 0, ""
    kept = [
        p
        for p in payloads
        if len(p.text) >= low
        and (high is None or len(p.text) <= high)
        and (pattern is None or pattern.search(p.text) is not None)
    ]
    return kept, len(payloads) - len(kept), _why(low, high, pattern)


def outside_line(count: int, why: str) -> str:
    """``22 payloads outside the schema (minLength 10), not sent``."""
    return f"{count} payload{'s' if count != 1 else ''} outside the schema ({why}), not sent"
