"""Valid values made from an OpenAPI schema, for the fields that do not carry the payload.

:func:`made_value` makes one plain value a schema accepts: its ``const``, first
``enum`` value, ``default`` or ``example`` when it has one, else a value of its type
within its bounds (a required property of an object, one item of a list that must
not be empty); ``random`` draws the numbers, so ``--seed`` makes the same request
again. :func:`with_path` makes the containers on the way to the payload's place.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["made_value", "with_path"]

_FORMATS = {
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


def made_value(schema: Mapping[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """One plain value ``schema`` accepts."""
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
            name: made_value(props[name], rng, depth + 1)
            for name in required
            if isinstance(props.get(name), Mapping)
        }
    if kind == "array":
        items: Mapping[str, Any] = _of(schema, "items", Mapping, {})
        count = int(schema.get("minItems", 0) or 0)
        return [made_value(items, rng, depth + 1) for _ in range(count)]
    if kind == "integer":
        return _number(schema, rng)
    if kind == "number":
        return float(_number(schema, rng))
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS:
        return _FORMATS[fmt]
    length = max(int(schema.get("minLength", 0) or 0), 1)
    text = f"value{rng.randint(0, 9999)}"
    text = (text * (length // len(text) + 1))[: max(length, len(text))]
    maximum = schema.get("maxLength")
    return text[: int(maximum)] if isinstance(maximum, int) and maximum > 0 else text


def _child(schema: Mapping[str, Any], part: str | int) -> Mapping[str, Any]:
    schema = _branch(schema)
    if isinstance(part, int):
        items = schema.get("items")
        return items if isinstance(items, Mapping) else {}
    props = schema.get("properties")
    sub = props.get(part) if isinstance(props, Mapping) else None
    return sub if isinstance(sub, Mapping) else {}


def with_path(
    body: dict[str, Any], schema: Mapping[str, Any], parts: Sequence[str | int], rng: random.Random
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
                node.append(made_value(schema, rng) if not last else "")
            if not last and not isinstance(node[part], (dict, list)):
                node[part] = blank
            node = node[part]
        elif isinstance(node, dict):
            current = node.get(part)
            if last or not isinstance(current, (dict, list)):
                node[str(part)] = blank if not last else (current or "")
            node = node[str(part)]
    return body
