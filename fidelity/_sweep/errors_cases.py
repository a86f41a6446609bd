"""The malformed calls of the error contract, made from a tool's input schema.

For each tool, in this order (arguments in the order of the schema's ``properties``):

- ``missing:ARG`` for each required argument: the other required arguments valid,
  ``ARG`` left out;
- ``type:ARG`` for each argument whose type is ``string``: ``ARG`` given the number
  12345;
- ``extra``: the required arguments valid, plus ``fidelity_unexpected_argument``;
- ``enum:ARG``, ``minLength:ARG``, ``maxLength:ARG``, ``pattern:ARG`` for each
  constraint an argument declares: a string outside it (``fidelity-not-an-option``; one
  character short of ``minLength``; one over ``maxLength``, up to 100,000; the first
  of ``""``, ``"-"``, ``"fidelity not matching"``, ``"0"`` that the pattern does not
  find);
- ``empty``: the empty object, when the tool requires an argument (else ``{}`` is a
  valid call);

and once per run ``unknown-tool``: a call to ``fidelity-no-such-tool``, which the
server does not list. The valid values (:func:`valid_value`) are the schema's
``const``, ``default``, first example or first ``enum`` value, else a plain value of
its type within its bounds (``fidelity`` for a string); ``--args-for`` and
``--default`` pins replace them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fidelity._sweep.openapi_made import FORMATS

__all__ = [
    "EXTRA_ARGUMENT",
    "NOT_AN_OPTION",
    "NOT_A_STRING",
    "UNKNOWN_TOOL",
    "ErrorCase",
    "error_cases",
    "unknown_tool_case",
    "valid_arguments",
    "valid_value",
]

#: The name of the tool that does not exist (made unique when a server lists it).
UNKNOWN_TOOL = "fidelity-no-such-tool"
#: What a string argument is given in ``type:ARG``.
NOT_A_STRING = 12345
#: The argument ``extra`` adds.
EXTRA_ARGUMENT = "fidelity_unexpected_argument"
#: The value ``enum:ARG`` gives.
NOT_AN_OPTION = "fidelity-not-an-option"
#: Candidates for ``pattern:ARG``, the first the pattern does not find is sent.
_OFF_PATTERN = ("", "-", "fidelity not matching", "0")
#: ``maxLength:ARG`` is made only up to this length (a longer value is not sent).
_LONGEST = 100_000
_DEPTH = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorCase:
    """One malformed call: the ``tool``, the ``case`` name, the ``arguments`` sent and
    the ``names`` an answer may name to say what was wrong (the argument concerned;
    for ``empty`` the required ones; for ``unknown-tool`` the tool)."""

    tool: str
    case: str
    arguments: Mapping[str, Any]
    names: tuple[str, ...] = field(default=())


def _props(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return {}
    return {str(k): v for k, v in props.items() if isinstance(v, Mapping)}


def _required(schema: Mapping[str, Any]) -> list[str]:
    listed = schema.get("required")
    return [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _is_string(schema: Mapping[str, Any]) -> bool:
    """True when the argument must be a string (``null`` allowed beside it)."""
    kinds = _types(schema) - {"null"}
    return kinds == {"string"}


def _first_branch(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list):
            usable = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
            if usable:
                rest = {k: v for k, v in schema.items() if k != key}
                return {**rest, **usable[0]}
    return schema


def _string(schema: Mapping[str, Any]) -> str:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMATS:
        return FORMATS[fmt]
    text = "fidelity"
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and low > len(text):
        text = (text * (low // len(text) + 1))[:low]
    if isinstance(high, int) and 0 <= high < len(text):
        text = text[:high]
    return text


def _number(schema: Mapping[str, Any]) -> int:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value = 1
    if isinstance(low, (int, float)) and value <= low:
        value = int(low) + 1
    if isinstance(high, (int, float)) and value >= high:
        value = int(high) - (1 if "exclusiveMaximum" in schema else 0)
    return value


def valid_value(schema: Mapping[str, Any], depth: int = 0) -> Any:
    """One plain value ``schema`` accepts (deterministic)."""
    schema = _first_branch(schema)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kinds = _types(schema) - {"null"}
    kind = next(iter(sorted(kinds)), "object" if "properties" in schema else "string")
    if depth > _DEPTH:
        return None
    if kind == "object":
        props = _props(schema)
        return {n: valid_value(props[n], depth + 1) for n in _required(schema) if n in props}
    if kind == "array":
        items = schema.get("items")
        count = schema.get("minItems")
        count = count if isinstance(count, int) and count > 0 else 0
        return [valid_value(items if isinstance(items, Mapping) else {}, depth + 1)] * count
    if kind in ("integer", "number"):
        return _number(schema)
    if kind == "boolean":
        return False
    return _string(schema)


def valid_arguments(
    schema: Mapping[str, Any], pins: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The tool's required arguments, each valid; ``pins`` (``--args-for``, ``--default``
    that the tool has) replace or add to them."""
    props = _props(schema)
    made = {name: valid_value(props.get(name, {})) for name in _required(schema)}
    return {**made, **(pins or {})}


def _off_pattern(pattern: object) -> str | None:
    if not isinstance(pattern, str):
        return None
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    return next((c for c in _OFF_PATTERN if not compiled.search(c)), None)


def _constraint_cases(name: str, schema: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (case, value) pairs outside the constraints ``schema`` declares."""
    out: list[tuple[str, str]] = []
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and NOT_AN_OPTION not in enum:
        out.append((f"enum:{name}", NOT_AN_OPTION))
    low = schema.get("minLength")
    if isinstance(low, int) and not isinstance(low, bool) and low >= 1:
        out.append((f"minLength:{name}", "x" * (low - 1)))
    high = schema.get("maxLength")
    if isinstance(high, int) and not isinstance(high, bool) and 0 <= high < _LONGEST:
        out.append((f"maxLength:{name}", "x" * (high + 1)))
    off = _off_pattern(schema.get("pattern"))
    if off is not None:
        out.append((f"pattern:{name}", off))
    return out


def error_cases(
    tool: str, schema: Mapping[str, Any], pins: Mapping[str, Any] | None = None
) -> tuple[ErrorCase, ...]:
    """The malformed calls of ``tool`` with input ``schema``, in the documented order."""
    props = _props(schema)
    required = _required(schema)
    base = valid_arguments(schema, pins)
    cases: list[ErrorCase] = []

    def add(case: str, arguments: Mapping[str, Any], names: Sequence[str]) -> None:
        cases.append(ErrorCase(tool=tool, case=case, arguments=dict(arguments), names=tuple(names)))

    for name in required:
        add(f"missing:{name}", {k: v for k, v in base.items() if k != name}, [name])
    for name, sub in props.items():
        if _is_string(_first_branch(sub)):
            add(f"type:{name}", {**base, name: NOT_A_STRING}, [name])
    add("extra", {**base, EXTRA_ARGUMENT: "fidelity"}, [EXTRA_ARGUMENT])
    for name, sub in props.items():
        for case, value in _constraint_cases(name, _first_branch(sub)):
            add(case, {**base, name: value}, [name])
    if required:
        add("empty", {}, required)
    return tuple(cases)


def unknown_tool_case(listed: Sequence[str]) -> ErrorCase:
    """The call to a tool the server does not list (``fidelity-no-such-tool``, with a
    number after it when that name is listed)."""
    name, n = UNKNOWN_TOOL, 1
    while name in listed:
        n += 1
        name = f"{UNKNOWN_TOOL}-{n}"
    return ErrorCase(tool=name, case="unknown-tool", arguments={}, names=(name,))
