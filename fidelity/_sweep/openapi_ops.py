"""``fidelity probe --openapi``: the operations of a document and their string fields.

:func:`operations` lists the operations (``METHOD /path``) selected by
``--only-op``/``--skip-op``; :func:`fields` finds every string field of each: JSON
bodies at any depth (string arrays too, as ``body.tags[0]``), form and multipart
fields, query, path and header parameters. A constrained string (``enum``,
``const``, ``format``, ``pattern``) is skipped with its reason, as ``--all-tools``
does, and so is every field of an operation other than GET, HEAD and OPTIONS without
``--yes``. Each field surveyed carries the request it is sent in
(:class:`FieldRequest`): the URL with the other path and query parameters made from
the schema (or ``--default NAME=JSON``), the JSON body template, the send place, and
where its value is read back (:func:`read_back`).
"""

from __future__ import annotations

import fnmatch
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from fidelity._core.render import safe
from fidelity._sweep.openapi_made import made_value, with_path
from fidelity._sweep.openapi_model import FieldRequest, Fill, Operation, OpField, OpInventory
from fidelity._sweep.openapi_read import read_back
from fidelity._sweep.templates import literal_braces

__all__ = ["SAFE_METHODS", "describe", "fields", "operations"]

#: The methods called without ``--yes``: those HTTP defines as safe.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")


def _selected(name: str, only: Sequence[str], skip: Sequence[str]) -> bool:
    if only and not any(fnmatch.fnmatchcase(name, g) for g in only):
        return False
    return not any(fnmatch.fnmatchcase(name, g) for g in skip)


def operations(
    document: Mapping[str, Any], only: Sequence[str] = (), skip: Sequence[str] = ()
) -> list[Operation]:
    """The operations of ``document`` in its order, selected by the globs."""
    found: list[Operation] = []
    for path, item in document.get("paths", {}).items():
        if not isinstance(item, Mapping):
            continue
        shared = [p for p in item.get("parameters", []) if isinstance(p, Mapping)]
        for method in _METHODS:
            spec = item.get(method)
            if not isinstance(spec, Mapping):
                continue
            own = [p for p in spec.get("parameters", []) if isinstance(p, Mapping)]
            names = {(p.get("in"), p.get("name")) for p in own}
            params = [p for p in shared if (p.get("in"), p.get("name")) not in names] + own
            op = Operation(method.upper(), str(path), spec, tuple(params))
            if _selected(op.name, only, skip):
                found.append(op)
    return found


# -- fields -------------------------------------------------------------------------


def _body(op: Operation) -> tuple[str, Mapping[str, Any]] | None:
    """The media type and schema of the operation's body, when it is one we fill."""
    body = op.spec.get("requestBody")
    content = body.get("content") if isinstance(body, Mapping) else None
    if not isinstance(content, Mapping):
        return None
    for media in _BODY_TYPES:
        entry = content.get(media)
        if isinstance(entry, Mapping) and isinstance(entry.get("schema"), Mapping):
            return media, entry["schema"]
    return None


def _string_places(schema: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Every string place in ``schema`` (its path and constraint), as ``--all-tools``
    finds them in a tool's input schema."""
    from probes.frontend import string_params

    return [(tuple(p.path.segments), p.constraint) for p in string_params(schema)]


def _dotted(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def _param_schema(param: Mapping[str, Any]) -> Mapping[str, Any]:
    """The parameter's schema: its ``schema``, else that of its ``content`` (a
    parameter serialized as a media type, such as a JSON ``filter`` object)."""
    schema = param.get("schema")
    if isinstance(schema, Mapping):
        return schema
    content = param.get("content")
    for entry in content.values() if isinstance(content, Mapping) else ():
        if isinstance(entry, Mapping) and isinstance(entry.get("schema"), Mapping):
            return dict(entry["schema"])
    return {"type": "string"}


def _url(fill: Fill, op: Operation, rng: random.Random, payload: tuple[str, str] | None) -> str:
    """The operation's URL: the path parameters and the required query parameters
    made, the one that is ``payload`` (place, name) left to the probe."""
    path = op.path
    query: list[tuple[str, str]] = []
    for param in op.parameters:
        where, name = param.get("in"), str(param.get("name", ""))
        if payload == (where, name):
            if where == "path":
                path = path.replace("{" + name + "}", "{value}")
            continue
        if where == "path":
            value = _text(fill.value(name, _param_schema(param), rng))
            path = path.replace("{" + name + "}", quote(value, safe=""))
        elif where == "query" and (param.get("required") or name in fill.defaults):
            query.append((name, _text(fill.value(name, _param_schema(param), rng))))
    url = fill.base + path
    return f"{url}?{urlencode(query)}" if query else url


def _headers(
    fill: Fill, op: Operation, rng: random.Random, payload: tuple[str, str] | None
) -> dict[str, str]:
    headers = dict(fill.headers)
    for param in op.parameters:
        where, name = param.get("in"), str(param.get("name", ""))
        wanted = param.get("required") or name in fill.defaults
        if where == "header" and payload != (where, name) and wanted:
            headers[name] = _text(fill.value(name, _param_schema(param), rng))
    return headers


def _body_template(
    fill: Fill, schema: Mapping[str, Any], rng: random.Random, parts: Sequence[str | int]
) -> dict[str, Any]:
    """The JSON body: the required fields made (``--default`` over them), the
    containers on the way to ``parts`` made too (a list gets one item to replace)."""
    made = made_value(schema, rng)
    body: dict[str, Any] = made if isinstance(made, dict) else {}
    for name, value in fill.defaults.items():
        if isinstance(schema.get("properties"), Mapping) and name in schema["properties"]:
            body[name] = value
    return with_path(body, schema, parts, rng)


def _guard(op: Operation, fill: Fill) -> str:
    if op.method in SAFE_METHODS or fill.yes:
        return ""
    return f"needs --yes ({op.method} may change or delete data; only GET, HEAD, OPTIONS run)"


def _param_fields(op: Operation, fill: Fill, refused: str) -> list[OpField]:
    out: list[OpField] = []
    for param in op.parameters:
        where, name = str(param.get("in", "")), str(param.get("name", ""))
        if where not in ("query", "path", "header") or not name:
            continue
        schema = _param_schema(param)
        # The parameter itself a string: a string inside an object parameter is not
        # a place the probe sends to.
        places = _string_places({"type": "object", "properties": {name: schema}})
        places = [p for p in places if len(p[0]) == 1]
        if not places:
            continue
        constraint = places[0][1]
        path = f"{where}.{name}"
        if "schema" not in param and "content" in param:
            media = ", ".join(str(m) for m in param["content"])
            out.append(OpField(op, path, f"serialized as {media}: not sent as plain text"))
            continue
        if constraint:
            out.append(OpField(op, path, f"constrained ({constraint}): not free-form text"))
            continue
        if refused:
            out.append(OpField(op, path, refused))
            continue
        rng = fill.rng(op)
        send = {"query": f"query:{name}", "path": "path", "header": f"header:{name}"}[where]
        body = _body(op)
        template = None
        if body is not None and body[0] == "application/json":
            template = literal_braces(_body_template(fill, body[1], rng, ()))
        request = FieldRequest(
            url=_url(fill, op, rng, (where, name)),
            method=op.method,
            send=send,
            body=template,
            headers=_headers(fill, op, rng, (where, name)),
        )
        out.append(OpField(op, path, "", read_back(op, fill, request, (name,))))
    return out


def _body_fields(op: Operation, fill: Fill, refused: str) -> list[OpField]:
    body = _body(op)
    if body is None:
        return []
    media, schema = body
    out: list[OpField] = []
    for parts, constraint in _string_places(schema):
        if media != "application/json" and len(parts) != 1:
            continue  # a form field is one name
        prefix = {"application/json": "body", "multipart/form-data": "multipart"}.get(media, "form")
        path = f"{prefix}.{_dotted(parts)}"
        if constraint:
            out.append(OpField(op, path, f"constrained ({constraint}): not free-form text"))
            continue
        if refused:
            out.append(OpField(op, path, refused))
            continue
        rng = fill.rng(op)
        if media == "application/json":
            send = "json:" + ".".join(str(p) for p in parts)
            template: Mapping[str, Any] | None = literal_braces(
                _body_template(fill, schema, rng, parts)
            )
        else:
            send = f"{'multipart' if prefix == 'multipart' else 'form'}:{parts[0]}"
            template = None
        request = FieldRequest(
            url=_url(fill, op, rng, None),
            method=op.method,
            send=send,
            body=template,
            headers=_headers(fill, op, rng, None),
        )
        out.append(OpField(op, path, "", read_back(op, fill, request, parts)))
    return out


def fields(ops: Sequence[Operation], fill: Fill) -> OpInventory:
    """Every string field of ``ops``, surveyed or skipped with its reason."""
    params: list[OpField] = []
    without: list[Operation] = []
    for op in ops:
        refused = _guard(op, fill)
        found = _param_fields(op, fill, refused) + _body_fields(op, fill, refused)
        if not found:
            without.append(op)
        params.extend(found)
    return OpInventory(params=tuple(params), without_strings=tuple(without))


def describe(op_field: OpField) -> str:
    """One line of the plan for a field surveyed: how it is sent and read back."""
    request = op_field.request
    if request is None:
        return safe(op_field.skipped)
    return safe(f"{request.method} {request.url} send {request.send}; read: {request.read_how}")
