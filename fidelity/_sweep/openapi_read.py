"""``fidelity probe --openapi``: where one field's value is read back.

In this order: the operation's own response, when its schema holds a field of the
same name (the calibration call then finds the place, as for one endpoint); else the
item read of the resource the operation created: an OpenAPI link of the response
(``operationId`` or a local ``operationRef``, its one parameter taken from
``$response.body#/...``), a ``Location`` header the response declares, or the
``GET /items/{id}`` beside ``POST /items`` with the id from the response (its field
named as the path parameter, or ``id``); else the response, as it is. The plan says
which for each row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fidelity._sweep.openapi_made import _branch

if TYPE_CHECKING:
    from fidelity._sweep.openapi_model import FieldRequest, Fill, Operation

__all__ = ["read_back"]


def _responses(op: Operation) -> list[Mapping[str, Any]]:
    responses = op.spec.get("responses")
    if not isinstance(responses, Mapping):
        return []
    return [
        r for code, r in responses.items() if str(code).startswith("2") and isinstance(r, Mapping)
    ]


def _json_schema(response: Mapping[str, Any]) -> Mapping[str, Any] | None:
    content = response.get("content")
    if not isinstance(content, Mapping):
        return None
    for media, entry in content.items():
        if "json" in str(media) and isinstance(entry, Mapping):
            schema = entry.get("schema")
            return _branch(schema) if isinstance(schema, Mapping) else None
    return None


def _names(schema: Mapping[str, Any], depth: int = 0) -> set[str]:
    """Every property name in ``schema`` (the items of a list included)."""
    if depth > 8:
        return set()
    schema = _branch(schema)
    out: set[str] = set()
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            out.add(str(name))
            if isinstance(sub, Mapping):
                out |= _names(sub, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        out |= _names(items, depth + 1)
    return out


def _echoes(op: Operation, name: str) -> bool:
    for response in _responses(op):
        schema = _json_schema(response)
        if schema is not None and name in _names(schema):
            return True
    return False


def _by_link(op: Operation, fill: Fill) -> tuple[str, str, str] | None:
    """``(read URL with {id}, id_from, words)`` from an OpenAPI link of the response."""
    for response in _responses(op):
        links = response.get("links")
        if not isinstance(links, Mapping):
            continue
        for link_name, link in links.items():
            if not isinstance(link, Mapping):
                continue
            target = _link_target(link, fill)
            params = link.get("parameters")
            if target is None or not isinstance(params, Mapping) or len(params) != 1:
                continue
            ((param, expr),) = params.items()
            if not (isinstance(expr, str) and expr.startswith("$response.body#/")):
                continue
            pointer = expr.removeprefix("$response.body#/")
            path = target.path.replace("{" + str(param) + "}", "{id}")
            if "{id}" in path:
                id_from = "json:" + pointer.replace("/", ".")
                return fill.base + path, id_from, f"{target.name} (OpenAPI link {link_name})"
    return None


def _link_target(link: Mapping[str, Any], fill: Fill) -> Operation | None:
    op_id = link.get("operationId")
    ref = link.get("operationRef")
    for op in fill.catalogue:
        if op.method != "GET":
            continue
        if op_id is not None and op.spec.get("operationId") == op_id:
            return op
        if isinstance(ref, str):
            wanted = "#/paths/" + op.path.replace("~", "~0").replace("/", "~1") + "/get"
            if ref == wanted:
                return op
    return None


def _by_location(op: Operation, fill: Fill) -> tuple[str, str, str] | None:
    """A ``GET`` of the ``Location`` the response declares (its path, on the base's
    origin: a Location on another host is not followed)."""
    for response in _responses(op):
        headers = response.get("headers")
        if isinstance(headers, Mapping) and any(str(h).lower() == "location" for h in headers):
            base = urlsplit(fill.base)
            url = f"{base.scheme}://{base.netloc}" + "{id}"
            return url, "header:Location", "GET of the Location header"
    return None


def _by_sibling(op: Operation, fill: Fill) -> tuple[str, str, str] | None:
    """The ``GET /items/{x}`` beside ``POST /items``, its id from the response."""
    prefix = op.path.rstrip("/") + "/{"
    for other in fill.catalogue:
        rest = other.path.removeprefix(prefix)
        if other.method != "GET" or rest == other.path or not rest.endswith("}") or "/" in rest:
            continue
        param = rest[:-1]
        names: set[str] = set()
        for response in _responses(op):
            schema = _json_schema(response)
            names |= set((schema or {}).get("properties", {}) or {})
        # The path parameter's name, else ``id`` (a response whose schema names no
        # field is taken to hold ``id``; the calibration call says if it does not).
        key = param if param in names else ("id" if "id" in names or not names else None)
        if key is None:
            continue
        url = fill.base + other.path.replace("{" + param + "}", "{id}")
        return url, f"json:{key}", f"{other.name} with the id from json:{key}"
    return None


def _by_same_path(op: Operation, fill: Fill, request: FieldRequest) -> tuple[str, str, str] | None:
    """The ``GET`` of the URL a ``PUT`` or ``PATCH`` wrote (``GET /todos/{id}`` after
    ``PUT /todos/{id}``), with the same path parameters."""
    if op.method not in ("PUT", "PATCH") or "{value}" in request.url:
        return None
    for other in fill.catalogue:
        if other.method == "GET" and other.path == op.path:
            return request.url, "", f"{other.name} (the URL written)"
    return None


def read_back(
    op: Operation, fill: Fill, request: FieldRequest, parts: Sequence[str | int]
) -> FieldRequest:
    """``request`` with its read-back: the response, or the item read of what it made."""
    name = next((p for p in reversed(parts) if isinstance(p, str)), "")
    if op.method in ("GET", "HEAD", "OPTIONS") or (name and _echoes(op, name)):
        return request
    for found in (
        _by_link(op, fill),
        _by_location(op, fill),
        _by_same_path(op, fill, request),
        _by_sibling(op, fill),
    ):
        if found is not None:
            url, id_from, words = found
            if any(part in (".", "..") for part in urlsplit(url).path.split("/")):
                continue  # a read path that climbs would read another route
            return dataclasses.replace(
                request, read_url=url, id_from=id_from or None, read_how=words
            )
    return request
