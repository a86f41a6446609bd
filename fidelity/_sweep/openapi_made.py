"""Valid values made from an OpenAPI schema, for the fields that do not carry the payload.

:func:`made_value` makes one plain value a schema accepts: its ``const``, first
``enum`` value, ``default`` or ``example`` when it has one, else a value of its type
within its bounds (a required property of an object, one item of a list that must
not be empty); ``random`` draws the numbers, so ``--seed`` makes the same request
again. :func:`with_path` makes the containers on the way to the payload's place.

A made value is the same in every request, so a service that wants names, ids or
titles unique answers the second request 409 Conflict and the field is never
measured. :func:`unique_text` makes such a field's value a template unique per
request instead: the made text and ``-{run}-{n}`` (the run's id and the payload's
number), within the schema's ``minLength`` and ``maxLength``; :func:`unique_fields`
applies it to an object's fields and :func:`template_text` keeps a ``--default``
value's ``{n}`` and ``{run}`` as placeholders and its other braces literal.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fidelity._core.errors import UsageError

__all__ = [
    "FORMATS",
    "MAX_MADE",
    "MadeBudget",
    "made_value",
    "template_text",
    "unique_fields",
    "unique_text",
    "with_path",
]

#: The field names whose values a service commonly wants unique (the name's last word,
#: snake_case, kebab-case or camelCase: ``name``, ``user_name``, ``displayName``...).
_WORDS = "name|username|id|uid|title|slug|key|login|handle|label|email|identifier|code"
_UNIQUE = re.compile(rf"(?:^|[_\-.])(?:{_WORDS})$")
_CAMEL = re.compile(rf"[a-z0-9](?:{_WORDS.title()}|ID)$")
#: ``-{run}-{n}`` as sent: 8 hex digits of the run, at most 7 digits of ``{n}``.
_SUFFIX, _SUFFIX_LONGEST, _SHORT_SUFFIX_LONGEST = "-{run}-{n}", 17, 15
_SUFFIX_SHORTEST = 11

#: A valid value of each string ``format`` a schema may declare.
FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "email": "user@example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
}
_MAX_DEPTH = 12
#: The most values made for one document's requests, all fields together: a schema
#: whose required properties fan out (a reference used twice at every level) would
#: otherwise make a body of billions of values for each of its hundreds of fields.
MAX_MADE = 500_000


class MadeBudget:
    """The values a document's requests may still make (``MAX_MADE`` in all)."""

    __slots__ = ("left",)

    def __init__(self, left: int = MAX_MADE) -> None:
        self.left = left

    def spend(self) -> None:
        """Count one value made; one sentence (``UsageError``) once none is left."""
        self.left -= 1
        if self.left < 0:
            raise UsageError(
                f"the OpenAPI document's request bodies would take more than {MAX_MADE} "
                "values to make (required properties that fan out at every level); select "
                "fewer operations with --only-op, or give the values with --default."
            )


def _branch(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema with ``allOf`` merged and the first non-null ``anyOf``/``oneOf``."""
    merged = dict(schema)
    for part in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        if isinstance(part, Mapping):
            branch = _branch(part)
            props = {**merged.get("properties", {}), **branch.get("properties", {})}
            required = [*merged.get("required", []), *branch.get("required", [])]
            merged = {**branch, **merged, "properties": props, "required": required}
    merged.pop("allOf", None)
    for key in ("anyOf", "oneOf"):
        options = merged.pop(key, None)
        if isinstance(options, list):
            usable = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
            if usable:
                return _branch({**merged, **usable[0]})
    return merged


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    return "array" if "items" in schema else "string"


def _number(schema: Mapping[str, Any], rng: random.Random) -> int:
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum", low + 100))
    low, high = int(low) + (1 if "exclusiveMinimum" in schema else 0), int(high)
    if "exclusiveMaximum" in schema:
        high -= 1
    low = max(low, 1) if high >= 1 else low
    return rng.randint(low, max(low, high))


def _of(schema: Mapping[str, Any], key: str, kind: Any, empty: Any) -> Any:
    value = schema.get(key)
    return value if isinstance(value, kind) else empty


def made_value(
    schema: Mapping[str, Any],
    rng: random.Random,
    depth: int = 0,
    budget: MadeBudget | None = None,
) -> Any:
    """One plain value ``schema`` accepts (each value made spends one of ``budget``)."""
    if budget is not None:
        budget.spend()
    schema = _branch(schema)
    for key in ("const", "default", "example"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = _kind(schema)
    if depth > _MAX_DEPTH:
        return None
    if kind == "object":
        props: Mapping[str, Any] = _of(schema, "properties", Mapping, {})
        required: list[Any] = _of(schema, "required", list, [])
        return {
            name: made_value(props[name], rng, depth + 1, budget)
            for name in required
            if isinstance(props.get(name), Mapping)
        }
    if kind == "array":
        items: Mapping[str, Any] = _of(schema, "items", Mapping, {})
        count = int(schema.get("minItems", 0) or 0)
        return [made_value(items, rng, depth + 1, budget) for _ in range(count)]
    if kind == "integer":
        return _number(schema, rng)
    if kind == "number":
        return float(_number(schema, rng))
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMATS:
        return FORMATS[fmt]
    length = max(int(schema.get("minLength", 0) or 0), 1)
    text = f"value{rng.randint(0, 9999)}"
    text = (text * (length // len(text) + 1))[: max(length, len(text))]
    maximum = schema.get("maxLength")
    return text[: int(maximum)] if isinstance(maximum, int) and maximum > 0 else text


def unique_text(name: str, schema: Mapping[str, Any], made: Any) -> str | None:
    """The template of a unique value for field ``name`` (``made`` its made value, brace
    free), or ``None`` when the field is not one a service wants unique, or its schema
    leaves no room for a unique value: not a free string (``const``, ``enum``,
    ``pattern``, a ``format`` other than ``email``), a ``maxLength`` under 15."""
    schema = _branch(schema)
    wanted = _UNIQUE.search(name.lower()) or _CAMEL.search(name)
    if not wanted or not isinstance(made, str) or _kind(schema) != "string":
        return None
    if any(k in schema for k in ("const", "enum", "pattern")):
        return None
    fmt = schema.get("format")
    if fmt == "email" and "@" in made:
        local, _, domain = made.partition("@")
        return f"{local}{_SUFFIX}@{domain}"
    if fmt is not None:
        return None
    maximum = schema.get("maxLength")
    minimum = int(schema.get("minLength", 0) or 0)
    base = made
    if isinstance(maximum, int):
        if maximum < _SHORT_SUFFIX_LONGEST:
            return None
        if maximum < _SUFFIX_LONGEST + 1:
            return "{run}{n}" if minimum <= 9 else None
        base = base[: maximum - _SUFFIX_LONGEST]
    if len(base) + _SUFFIX_SHORTEST < minimum:
        base = (base * (minimum // max(len(base), 1) + 1))[: minimum - _SUFFIX_SHORTEST]
    return f"{base}{_SUFFIX}"


def unique_fields(value: Any, schema: Mapping[str, Any], depth: int = 0) -> Any:
    """``value`` (made from ``schema``) as template text: its braces literal, and each
    field a service wants unique (see :func:`unique_text`) unique per request."""
    schema = _branch(schema)
    if isinstance(value, dict) and depth <= _MAX_DEPTH:
        props: Mapping[str, Any] = _of(schema, "properties", Mapping, {})
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key)
            sub = sub if isinstance(sub, Mapping) else {}
            unique = unique_text(str(key), sub, item)
            out[key] = unique if unique is not None else unique_fields(item, sub, depth + 1)
        return out
    if isinstance(value, list) and depth <= _MAX_DEPTH:
        items: Mapping[str, Any] = _of(schema, "items", Mapping, {})
        return [unique_fields(item, items, depth + 1) for item in value]
    if isinstance(value, str):
        return value.replace("{", "{{").replace("}", "}}")
    return value


def template_text(value: Any) -> Any:
    """A ``--default`` value as template text: ``{n}`` and ``{run}`` kept as the
    placeholders they are, every other brace literal."""
    if isinstance(value, dict):
        return {k: template_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [template_text(v) for v in value]
    if isinstance(value, str):
        escaped = value.replace("{", "{{").replace("}", "}}")
        return escaped.replace("{{n}}", "{n}").replace("{{run}}", "{run}")
    return value


def _child(schema: Mapping[str, Any], part: str | int) -> Mapping[str, Any]:
    schema = _branch(schema)
    if isinstance(part, int):
        items = schema.get("items")
        return items if isinstance(items, Mapping) else {}
    props = schema.get("properties")
    sub = props.get(part) if isinstance(props, Mapping) else None
    return sub if isinstance(sub, Mapping) else {}


def with_path(
    body: dict[str, Any],
    schema: Mapping[str, Any],
    parts: Sequence[str | int],
    rng: random.Random,
    budget: MadeBudget | None = None,
) -> dict[str, Any]:
    """``body`` with the objects and lists on the way to ``parts`` made (a list that
    is too short gets items made from its schema; the last place holds a made string
    for the payload to replace)."""
    node: Any = body
    for i, part in enumerate(parts):
        schema = _child(schema, part)
        last = i == len(parts) - 1
        blank: Any = "" if last else ([] if _kind(_branch(schema)) == "array" else {})
        if isinstance(part, int) and isinstance(node, list):
            while len(node) <= part:
                node.append(made_value(schema, rng, 0, budget) if not last else "")
            if not last and not isinstance(node[part], (dict, list)):
                node[part] = blank
            node = node[part]
        elif isinstance(node, dict):
            current = node.get(part)
            if last or not isinstance(current, (dict, list)):
                node[str(part)] = blank if not last else (current or "")
            node = node[str(part)]
    return body
