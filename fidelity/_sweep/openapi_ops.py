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
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus

from fidelity._core.render import safe
from fidelity._sweep.openapi_made import (
    made_value,
    template_text,
    unique_fields,
    unique_text,
    with_path,
)
from fidelity._sweep.openapi_model import FieldRequest, Fill, Operation, OpField, OpInventory
from fidelity._sweep.openapi_read import read_back

__all__ = [
    "SAFE_METHODS",
    "ValidRequest",
    "consent",
    "describe",
    "fields",
    "operations",
    "path_segment",
    "valid_request",
]

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


def _param_text(
    fill: Fill,
    param: Mapping[str, Any],
    rng: random.Random,
    encode: Callable[..., str] = quote,
) -> str:
    """A path or query parameter's value as URL template text: ``--default``'s with its
    ``{n}`` and ``{run}`` kept, a made one unique per request when a service wants it
    so (see :func:`unique_text`), everything else percent-encoded by ``encode``."""
    name, schema = str(param.get("name", "")), _param_schema(param)
    value = fill.value(name, schema, rng)
    if name in fill.defaults:
        encoded = encode(_text(value), safe="")
        return encoded.replace("%7Bn%7D", "{n}").replace("%7Brun%7D", "{run}")
    made = encode(_text(value), safe="")
    unique = unique_text(name, schema, made) if isinstance(value, str) else None
    return unique if unique is not None else made


def _url(fill: Fill, op: Operation, rng: random.Random, payload: tuple[str, str] | None) -> str:
    """The operation's URL: the path parameters and the required query parameters
    made, the one that is ``payload`` (place, name) left to the probe."""
    path = op.path
    query: list[str] = []
    for param in op.parameters:
        where, name = param.get("in"), str(param.get("name", ""))
        if payload == (where, name):
            if where == "path":
                path = path.replace("{" + name + "}", "{value}")
            continue
        if where == "path":
            path = path.replace("{" + name + "}", _param_text(fill, param, rng, _segment))
        elif where == "query" and (param.get("required") or name in fill.defaults):
            query.append(f"{quote_plus(name)}={_param_text(fill, param, rng, quote_plus)}")
    url = fill.base + path
    return f"{url}?{'&'.join(query)}" if query else url


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
    """The JSON body as a template: the required fields made (unique per request where a
    service wants them so), ``--default`` over them (its ``{n}`` and ``{run}`` kept), the
    containers on the way to ``parts`` made too (a list gets one item to replace)."""
    made = made_value(schema, rng, budget=fill.budget)
    body: dict[str, Any] = with_path(
        made if isinstance(made, dict) else {}, schema, parts, rng, fill.budget
    )
    body = unique_fields(body, schema)
    for name, value in fill.defaults.items():
        if isinstance(schema.get("properties"), Mapping) and name in schema["properties"]:
            body[name] = template_text(value)
    return body


def path_segment(value: str) -> str:
    """``value`` as one path segment: percent-encoded, ``/`` included, and a dot
    segment (``.``, ``..``) as ``%2E``/``%2E%2E``, so the request path never
    normalises to another route (``/files/../view`` would be ``/view``)."""
    if value in (".", ".."):
        return "%2E" * len(value)
    return quote(value, safe="")


def _dot_segment(path: str) -> bool:
    """Whether the operation's own path holds a ``.`` or ``..`` segment."""
    return any(part in (".", "..") for part in path.split("?", maxsplit=1)[0].split("/"))


#: The names by which a request asks a server to take it as another method.
_OVERRIDES = frozenset({"x-http-method-override", "x-http-method", "x-method-override", "_method"})


def _overridden(op: Operation, fill: Fill) -> str:
    """The method a request of ``op`` would ask for in a method override (a header or
    query parameter such as ``X-HTTP-Method-Override``, a body field ``_method``, or
    the same in ``--header``), when that is not a safe method; ``""`` otherwise."""
    rng = fill.rng(op)
    asked: list[Any] = [v for k, v in fill.sent_headers.items() if k.lower() in _OVERRIDES]
    for param in op.parameters:
        name = str(param.get("name", ""))
        if param.get("in") in ("header", "query") and name.lower() in _OVERRIDES:
            asked.append(fill.value(name, _param_schema(param), rng))
    body = _body(op)
    props = body[1].get("properties") if body is not None else None
    for name, schema in props.items() if isinstance(props, Mapping) else ():
        if str(name).lower() in _OVERRIDES and isinstance(schema, Mapping):
            asked.append(fill.value(str(name), schema, rng))
    for value in asked:
        method = str(value).strip().upper()
        if method not in SAFE_METHODS:
            return method or "another method"
    return ""


def _segment(value: str, safe: str = "") -> str:
    """:func:`path_segment` in the form :func:`_param_text` calls its encoder."""
    del safe
    return path_segment(value)


def _guard(op: Operation, fill: Fill) -> str:
    if _dot_segment(op.path):
        return "its path holds a dot segment (. or ..), which would lead to another route"
    if fill.yes:
        return ""
    if op.method not in SAFE_METHODS:
        return f"needs --yes ({op.method} may change or delete data; only GET, HEAD, OPTIONS run)"
    method = _overridden(op, fill)
    if method:
        return (
            f"needs --yes (a method override asks the server to take this {op.method} as "
            f"{safe(method)[:20]}, which may change or delete data)"
        )
    return ""


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
            template = _body_template(fill, body[1], rng, ())
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
            template: Mapping[str, Any] | None = _body_template(fill, schema, rng, parts)
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


@dataclass(frozen=True, slots=True)
class ValidRequest:
    """A request of an operation whose values are all made valid: its URL (path and
    required query parameters), headers, body media type and schema, and JSON body."""

    url: str
    headers: Mapping[str, str]
    media: str | None
    schema: Mapping[str, Any]
    body: Any


def valid_request(op: Operation, fill: Fill) -> ValidRequest:
    """The request of ``op`` with every required value made from the schema (or
    ``--default``): what the error contract makes one value of malformed."""
    import secrets

    rng = fill.rng(op)
    body = _body(op)
    media, schema = body if body is not None else (None, {})
    made = _body_template(fill, schema, rng, ()) if media == "application/json" else None
    run = secrets.token_hex(4)  # the templates' {run}; {n} is 0
    return ValidRequest(
        url=_concrete(_url(fill, op, rng, None), run, literal=False),
        headers={
            k: _concrete(v, run, literal=False) for k, v in _headers(fill, op, rng, None).items()
        },
        media=media,
        schema=schema,
        body=_concrete(made, run),
    )


_TEMPLATE = re.compile(r"\{\{|\}\}|\{(n|run)\}")
_PLACEHOLDER = re.compile(r"\{(n|run)\}")


def _concrete(value: Any, run: str, *, literal: bool = True) -> Any:
    """A template (a URL, a header value, a JSON body) as one request sends it: ``{run}``
    and ``{n}`` (0) filled, and, in a body, ``{{`` and ``}}`` as the braces they are."""
    if isinstance(value, dict):
        return {k: _concrete(v, run, literal=literal) for k, v in value.items()}
    if isinstance(value, list):
        return [_concrete(v, run, literal=literal) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        return match.group(0)[0] if name is None else (run if name == "run" else "0")

    return (_TEMPLATE if literal else _PLACEHOLDER).sub(one, value)


def consent(op: Operation, fill: Fill) -> str:
    """Why ``op`` is not called (``""`` when it may be): a method other than GET, HEAD
    and OPTIONS without ``--yes``."""
    return _guard(op, fill)
