"""Where a tool's input schema takes text: its string parameters, at any depth.

:func:`string_params` walks an ``inputSchema`` (objects, arrays, ``anyOf``/``oneOf``/
``allOf`` branches, local ``$ref``) and lists every place a string goes, as a
:class:`~probes._payload.paths.ParamPath` (``edits[0].oldText``), and whether it is
free-form text (no ``enum``, ``const``, ``format`` or ``pattern``). :func:`schema_at`
finds the schema of one path, to check a ``param`` before anything is sent.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from probes._payload.paths import ParamPath

__all__ = ["StringParam", "object_schema", "schema_at", "string_params"]

_MAX_DEPTH = 12
_MAX_PARAMS = 500
_CONSTRAINED = ("enum", "const", "format", "pattern", "contentEncoding", "contentMediaType")
_SHOWN_VALUE = 40


@dataclass(frozen=True, slots=True, kw_only=True)
class StringParam:
    """One place a string goes: its path, and whether any text is allowed there.

    ``constraint`` says what limits a string that is not free-form, as the schema
    words it (``enum``, ``const``, ``format: uri``, ``pattern: ^[a-z]+$``).
    """

    path: ParamPath
    free: bool
    constraint: str = ""


def _constraint(schema: Mapping[str, Any]) -> str:
    """The first keyword of ``schema`` that limits a string, with its value when short."""
    for key in _CONSTRAINED:
        if key in schema:
            value = schema[key]
            if key in ("format", "pattern", "contentEncoding", "contentMediaType") and isinstance(
                value, str
            ):
                shown = value if len(value) <= _SHOWN_VALUE else value[: _SHOWN_VALUE - 3] + "..."
                return f"{key}: {shown}"
            return key
    return ""


def _resolve(
    root: Mapping[str, Any], schema: object, seen: frozenset[str]
) -> tuple[Any, frozenset[str]]:
    """Follow local ``$ref``s (``#/$defs/X``, ``#/definitions/X``); a cycle ends in ``{}``."""
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref: str = schema["$ref"]
        if ref in seen or not ref.startswith("#/"):
            return {}, seen
        seen = seen | {ref}
        node: Any = root
        for escaped in ref[2:].split("/"):
            part = escaped.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, Mapping) else None
        schema = node if isinstance(node, Mapping) else {}
    return schema, seen


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    if "properties" in schema:
        return {"object"}
    if "items" in schema or "prefixItems" in schema:
        return {"array"}
    return set()


def _branches(schema: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for key in ("anyOf", "oneOf", "allOf"):
        value = schema.get(key)
        if isinstance(value, list):
            out.extend(value)
    return out


def _walk(
    root: Mapping[str, Any], schema: object, path: tuple[str | int, ...], seen: frozenset[str]
) -> Iterator[StringParam]:
    if len(path) > _MAX_DEPTH:
        return
    schema, seen = _resolve(root, schema, seen)
    if not isinstance(schema, Mapping):
        return
    types = _types(schema)
    if "string" in types and path:
        constraint = _constraint(schema)
        yield StringParam(path=ParamPath(path), free=not constraint, constraint=constraint)
    if "object" in types:
        props = schema.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                if isinstance(name, str) and name:
                    yield from _walk(root, sub, (*path, name), seen)
    if "array" in types:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(prefix, list):
            for i, sub in enumerate(prefix):
                yield from _walk(root, sub, (*path, i), seen)
        elif isinstance(items, list):  # draft-07 tuple form
            for i, sub in enumerate(items):
                yield from _walk(root, sub, (*path, i), seen)
        elif isinstance(items, Mapping):
            yield from _walk(root, items, (*path, 0), seen)
    for branch in _branches(schema):
        yield from _walk(root, branch, path, seen)


def string_params(input_schema: Mapping[str, Any]) -> tuple[StringParam, ...]:
    """Every place a string goes in ``input_schema``, in schema order, without repeats.

    A place reached by several branches is free-form if any branch leaves it free.
    """
    found: dict[ParamPath, str] = {}  # path -> its constraint ("" once a branch is free)
    for param in _walk(input_schema, input_schema, (), frozenset()):
        if found.get(param.path) != "":
            found[param.path] = param.constraint
        if len(found) >= _MAX_PARAMS:
            break
    return tuple(StringParam(path=p, free=not c, constraint=c) for p, c in found.items())


def schema_at(input_schema: Mapping[str, Any], path: ParamPath) -> list[Mapping[str, Any]] | None:
    """The schemas that may hold the value at ``path`` (several when branches differ).

    ``None`` when the schema says nothing that far down (no properties listed, or a
    vague schema): the path cannot be checked. An empty list: the schema rules the
    path out (an undeclared key, an index into something that is not an array).
    """
    level: list[tuple[Any, frozenset[str]]] = [(input_schema, frozenset())]
    for segment in path.segments:
        following: list[tuple[Any, frozenset[str]]] = []
        vague = False
        for schema, seen in _expand(input_schema, level):
            types = _types(schema)
            if isinstance(segment, str):
                props = schema.get("properties")
                if isinstance(props, Mapping) and segment in props:
                    following.append((props[segment], seen))
                elif not isinstance(props, Mapping) and (not types or "object" in types):
                    vague = True
            else:
                prefix = schema.get("prefixItems")
                items = schema.get("items")
                if isinstance(prefix, list) and segment < len(prefix):
                    following.append((prefix[segment], seen))
                elif isinstance(items, Mapping):
                    following.append((items, seen))
                elif not types or "array" in types:
                    vague = True
        if not following:
            return None if vague else []
        level = following
    return [schema for schema, _ in _expand(input_schema, level)]


def _expand(
    root: Mapping[str, Any], level: list[tuple[Any, frozenset[str]]]
) -> list[tuple[Mapping[str, Any], frozenset[str]]]:
    """Each schema resolved, with its ``anyOf``/``oneOf``/``allOf`` branches beside it."""
    out: list[tuple[Mapping[str, Any], frozenset[str]]] = []
    todo = list(level)
    while todo and len(out) < _MAX_PARAMS:
        schema, seen = todo.pop(0)
        schema, seen = _resolve(root, schema, seen)
        if not isinstance(schema, Mapping):
            continue
        out.append((schema, seen))
        todo.extend((branch, seen) for branch in _branches(schema))
    return out


def object_schema(schemas: list[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The first of ``schemas`` that describes an object (``{}`` when none does)."""
    for schema in schemas:
        if "object" in _types(schema) and isinstance(schema.get("properties"), Mapping):
            return schema
    return {}
