"""What the reference reflector's evidence says about the request path of an HTTP probe.

:class:`RequestEvidence` reads the value at the send place from the bytes httpx put on
the wire, from the bytes uvicorn received (armored in the reflector's evidence) and as
Starlette decoded them, each a :class:`~fidelity._probe.observation.Hop`; :func:`blame`
names the first hop whose value differs from the one sent.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import httpx

from fidelity._core.kinds import Status
from fidelity._core.text import to_utf8
from fidelity._probe.contract import observe_value
from fidelity._probe.observation import Direction, Hop, Observation
from probes._http.places import SendSpec, server_values
from probes._http.wire import form_value, json_value, multipart_value, path_value, text_value

__all__ = ["PLACEHOLDER", "RequestEvidence", "blame"]

#: Where a URL template takes the value (``send='path'`` or ``'url'``).
PLACEHOLDER = "{value}"


class RequestEvidence:
    """The request path's hops for values sent at ``place`` to ``url`` (a template when
    the value goes in the URL)."""

    def __init__(self, place: SendSpec, url: str) -> None:
        self.place = place
        self.url = url

    def wire(self, request: httpx.Request) -> bytes:
        """The bytes httpx put on the wire for the value's place."""
        where = self.place.where
        if where == "query":
            return request.url.query
        if where == "path":
            return request.url.raw_path.split(b"?", 1)[0]
        if where == "header":
            return request.headers.raw[-1][1] if request.headers.raw else b""
        return request.content

    def template_path(self) -> tuple[bytes, bytes]:
        """The raw path before and after ``{value}`` in the URL template."""
        before, after = self.url.split(PLACEHOLDER, 1)
        prefix = httpx.URL(before).raw_path.split(b"?", 1)[0]
        if not before.endswith("/") and prefix.endswith(b"/") and len(prefix) > 1:
            prefix = prefix[:-1]
        suffix = after.split("?", 1)[0].split("#", 1)[0].encode("ascii", "replace")
        return prefix, suffix

    def wire_value(self, data: bytes, request: httpx.Request) -> object:
        """The value a conforming decoder reads at the send place from ``data``."""
        where, name = self.place.where, self.place.name
        if where in {"query", "form"}:
            return form_value(data, name)
        if where == "path":
            return path_value(data, *self.template_path())
        if where == "json":
            return json_value(data, name)
        if where == "multipart":
            return multipart_value(data, request.headers.get("content-type", ""), name)
        return text_value(data)  # header, body

    def hops(
        self, request: httpx.Request, wire: bytes | None, raw: object, evidence: dict[str, Any]
    ) -> list[Hop]:
        """The value as read from the bytes httpx sent and from the bytes uvicorn got."""
        hops: list[Hop] = []
        if self.place.where == "filename":
            return hops  # no reference decoder for multipart headers here
        sent: object = None
        if wire is not None:
            sent = self.wire_value(wire, request)
            hops.append(Hop(name="httpx (bytes sent)", value=sent))
        if raw is None:
            body = evidence.get("body", {}).get("raw")
            if body is not None:
                raw = _armored_bytes(body)
        if isinstance(raw, bytes):
            value = sent if raw == wire else self.wire_value(raw, request)
            hops.append(Hop(name="uvicorn (bytes received)", value=value))
        return hops

    def request_part(
        self, text: str, request: httpx.Request, wire: bytes | None, evidence: dict[str, Any]
    ) -> Observation:
        try:
            raw, decoded = server_values(evidence, self.place)
            hops = self.hops(request, wire, raw, evidence)
        except (ValueError, KeyError, TypeError) as exc:
            return Observation(
                sent=text,
                status=Status.BROKEN,
                error_type="BadEvidence",
                error=f"the reflector's evidence is malformed ({exc}).",
                direction=Direction.REQUEST,
            )
        if decoded is None:
            return Observation(
                sent=text,
                status=Status.LOST,
                error_type="Missing",
                error=f"the reflector received no value at {self.place}.",
                direction=Direction.REQUEST,
                wire=wire,
                hops=tuple(hops),
                blame=blame(text, hops),
            )
        if self.place.where == "path" and isinstance(decoded, str):
            prefix, suffix = self.template_path()
            decoded = _strip(decoded, prefix.decode("utf-8", "replace"), suffix.decode("ascii"))
        hops.append(Hop(name="starlette (decoded)", value=decoded))
        return observe_value(
            text,
            decoded,
            direction=Direction.REQUEST,
            wire=wire,
            hops=tuple(hops),
            blame=blame(text, hops),
        )


def _armored_bytes(armored: object) -> bytes | None:
    """The bytes of an armored evidence item (``None`` if malformed)."""
    if not isinstance(armored, dict) or not isinstance(armored.get("base64"), str):
        return None
    try:
        return base64.b64decode(armored["base64"], validate=True)
    except (binascii.Error, ValueError):
        return None


def _strip(path: str, prefix: str, suffix: str) -> str:
    from urllib.parse import unquote

    prefix = unquote(prefix)
    if prefix and path.startswith(prefix):
        path = path[len(prefix) :]
    if suffix and path.endswith(suffix):
        path = path[: -len(suffix)]
    return path


def _same(sent: str, value: object) -> bool:
    if isinstance(value, str):
        return to_utf8(value) == to_utf8(sent)
    return isinstance(value, bytes) and value == to_utf8(sent)


def blame(text: str, hops: list[Hop] | tuple[Hop, ...]) -> str | None:
    """The first hop whose value differs from ``text``."""
    for hop in hops:
        if not _same(text, hop.value):
            return hop.name
    return None
