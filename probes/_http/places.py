"""Where a value goes in an HTTP request and where it is found in a response.

``send`` specs place the payload in a request; ``read`` specs find the value in a
response. Both are parsed once, up front, so a bad spec is a ``UsageError`` naming
the valid forms before anything is sent. This module also reads the reflector's
evidence (see :mod:`probes._http.app`) for one send place; it imports neither httpx
nor Starlette, so the reflector and the probe share it.

Send forms:

``json:PATH``       a string at a path of a JSON body (``json:a.b`` -> ``{"a": {"b": v}}``;
                    paths as in :mod:`probes._payload.paths`, the same as MCP's)
``form:NAME``       an ``application/x-www-form-urlencoded`` body field
``multipart:NAME``  a ``multipart/form-data`` field
``filename:NAME``   the filename of a ``multipart/form-data`` file field
``query:NAME``      a query-string parameter (the client encodes it)
``path``            one path segment: the URL holds ``{value}``, which becomes the
                    value percent-encoded as a single segment (``/`` too)
``url``             the URL holds ``{value}`` and the value is pasted in as is, like
                    string formatting: the client's URL parser does what it does
                    (``?``, ``#``, ``+``, dot segments); ``{value}`` after ``NAME=`` in
                    the query is read back as that query parameter, else as the path
``header:NAME``     a request header value
``body``            the whole body, ``text/plain; charset=utf-8``

Read forms: ``json:PATH``, ``body``, ``header:NAME``, ``regex:PATTERN`` (exactly one
group, searched in the decoded body).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.text import from_utf8
from probes._payload.paths import NOT_FOUND, ParamPath, get, put
from probes._payload.placeholders import Filled

__all__ = [
    "READ_FORMS",
    "SEND_FORMS",
    "ReadSpec",
    "SendSpec",
    "get_path",
    "parse_read",
    "parse_send",
    "put_path",
    "server_values",
]

SEND_FORMS = (
    "json:PATH",
    "form:NAME",
    "multipart:NAME",
    "filename:NAME",
    "query:NAME",
    "path",
    "url",
    "header:NAME",
    "body",
)
READ_FORMS = ("json:PATH", "body", "header:NAME", "regex:PATTERN")

_NAMED = frozenset({"json", "form", "multipart", "filename", "query", "header"})
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class SendSpec:
    """A parsed ``send`` spec: ``where`` (``json``, ``form``, ...) and ``name``."""

    where: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.where}:{self.name}" if self.name else self.where


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadSpec:
    """A parsed ``read`` spec: ``where`` (``json``, ``body``, ``header``, ``regex``)."""

    where: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.where}:{self.name}" if self.name else self.where

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern of a ``regex:`` read."""
        return re.compile(self.name)


def _bad_send(spec: object, why: str) -> UsageError:
    return UsageError(f"send={spec!r} {why}; valid forms are: {', '.join(SEND_FORMS)}.")


def _bad_read(spec: object, why: str) -> UsageError:
    return UsageError(f"read={spec!r} {why}; valid forms are: {', '.join(READ_FORMS)}.")


def _check_path(path: str, *, write: bool = False) -> bool:
    try:
        parsed = ParamPath.parse(path, what="path")
    except UsageError:
        return False
    return parsed.writable and isinstance(parsed.top, str) if write else True


def parse_send(spec: object) -> SendSpec:
    """Parse a ``send`` spec or raise ``UsageError`` naming the valid forms."""
    if not isinstance(spec, str):
        raise _bad_send(spec, "is not a string")
    if spec in ("body", "path", "url"):
        return SendSpec(where=spec)
    where, sep, name = spec.partition(":")
    if not sep or where not in _NAMED:
        raise _bad_send(spec, "is not a known place")
    if not name:
        raise _bad_send(spec, "needs a name after the colon")
    if where == "json" and not _check_path(name, write=True):
        raise _bad_send(
            spec,
            "is not a path it can write (keys with dots, list indexes from 0 in brackets, "
            'a key holding dots as ["the key"])',
        )
    if where == "header" and not _TOKEN.fullmatch(name):
        raise _bad_send(spec, "names a header that is not an HTTP token")
    return SendSpec(where=where, name=name)


def parse_read(spec: object) -> ReadSpec:
    """Parse a ``read`` spec or raise ``UsageError`` naming the valid forms."""
    if not isinstance(spec, str):
        raise _bad_read(spec, "is not a string")
    if spec == "body":
        return ReadSpec(where="body")
    where, sep, name = spec.partition(":")
    if not sep or where not in ("json", "header", "regex"):
        raise _bad_read(spec, "is not a known place")
    if not name:
        raise _bad_read(spec, "needs a name after the colon")
    if where == "json" and not _check_path(name):
        raise _bad_read(
            spec,
            "is not a path (keys with dots, list indexes in brackets, a key holding dots "
            'as ["the key"], the last item as [-1], any member as *)',
        )
    if where == "header" and not _TOKEN.fullmatch(name):
        raise _bad_read(spec, "names a header that is not an HTTP token")
    if where == "regex":
        try:
            groups = re.compile(name).groups
        except re.error as exc:
            raise _bad_read(spec, f"is not a valid regular expression ({exc})") from None
        if groups != 1:
            raise _bad_read(spec, f"must have exactly one group, not {groups}")
    return ReadSpec(where=where, name=name)


def put_path(path: str, value: object) -> dict[str, Any]:
    """Return the JSON object that holds ``value`` at ``path`` (:mod:`probes._payload.paths`)."""
    return put({}, ParamPath.parse(path, what="json path"), value, where="the JSON body")


_MISSING = object()


def get_path(
    document: object, path: str, values: Filled | Mapping[str, str] | None = None
) -> tuple[bool, object]:
    """Follow ``path`` (:mod:`probes._payload.paths`, placeholders filled from
    ``values``); return ``(found, value)``."""
    try:
        parsed = ParamPath.parse(path, what="json path")
    except UsageError:
        return False, None
    value = get(document, parsed, values)
    return (False, None) if value is NOT_FOUND else (True, value)


# --- the reflector's evidence ---------------------------------------------------------


def _bytes(armored: object) -> bytes:
    if not isinstance(armored, dict) or not isinstance(armored.get("base64"), str):
        raise ValueError("evidence item is not armored")
    return base64.b64decode(armored["base64"], validate=True)


def _value(armored: object) -> str | bytes:
    data = _bytes(armored)
    text = from_utf8(data)
    return data if text is None else text


def _named(items: object, name: str, field: str = "value") -> object:
    if not isinstance(items, list):
        return _MISSING
    for item in items:
        if isinstance(item, dict) and _value(item.get("name")) == name:
            return item.get(field, _MISSING)
    return _MISSING


def server_values(evidence: dict[str, Any], send: SendSpec) -> tuple[object, object]:
    """Find ``send``'s place in the reflector's evidence.

    Returns ``(raw, decoded)``: the bytes the ASGI server delivered for that
    place (``None`` where the place has no separate raw form, e.g. a form field inside
    the body) and the value as Starlette decoded it (a ``str``, or a JSON value for
    ``json:``); ``decoded`` is ``None`` when the value is not there. Raises
    ``ValueError`` when the evidence is malformed.
    """
    where, name = send.where, send.name
    if where == "json":
        document = evidence.get("json")
        if not isinstance(document, dict) or "value" not in document:
            return None, None
        found, value = get_path(document["value"], name)
        if not found:
            return None, None
        if isinstance(value, dict) and "base64" in value:
            return None, _value(value)
        return None, value  # a non-string leaf arrives as itself
    if where == "query":
        query = evidence.get("query", {})
        decoded = _named(query.get("params"), name)
        raw = _bytes(query["raw"]) if "raw" in query else None
        return raw, None if decoded is _MISSING else _value(decoded)
    if where == "header":
        item = _named(evidence.get("headers"), name.lower(), "decoded")
        if item is _MISSING:
            return None, None
        return _bytes(_named(evidence.get("headers"), name.lower(), "raw")), _value(item)
    if where == "path":
        path = evidence.get("path", {})
        if "decoded" not in path:
            return None, None
        return _bytes(path.get("raw")), _value(path["decoded"])
    if where == "body":
        body = evidence.get("body", {})
        return None, _value(body["raw"]) if "raw" in body else None
    if where == "url":
        raise ValueError("resolve a url send to its query parameter or path first")
    if where in ("form", "multipart"):
        decoded = _named(evidence.get("form"), name)
        return None, None if decoded is _MISSING else _value(decoded)
    if where == "filename":
        decoded = _named(evidence.get("files"), name, "filename")
        return None, None if decoded is _MISSING else _value(decoded)
    raise ValueError(f"unknown place {send}")
