"""Reading a value back out of the bytes of an HTTP request, as a conforming decoder would.

The HTTP probe names the hop that changed a value: the bytes the client put on the
wire, the bytes the ASGI server delivered, and what the server framework decoded. The
first two are bytes; this module decodes them at one send place with the reference
decoding of that place (form-urlencoding for query strings and form bodies, where
``+`` is a space; percent-decoding for a path segment; UTF-8 for headers and bodies;
``json.loads`` for JSON; the ``email`` parser for multipart fields), so a difference
is blamed on the hop that produced it.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import json
from urllib.parse import unquote_to_bytes

from fidelity._core.text import from_utf8
from probes._http.places import get_path

__all__ = ["form_value", "json_value", "multipart_value", "path_value", "text_value"]


def text_value(data: bytes) -> str | bytes:
    """UTF-8 text (lone surrogates kept), or the bytes when they are not UTF-8."""
    text = from_utf8(data)
    return data if text is None else text


def form_value(encoded: bytes, name: str) -> str | bytes | None:
    """The first value of ``name`` in form-urlencoded ``encoded`` (``+`` is a space)."""
    for pair in encoded.split(b"&"):
        key, _, value = pair.partition(b"=")
        if text_value(unquote_to_bytes(key.replace(b"+", b" "))) == name:
            return text_value(unquote_to_bytes(value.replace(b"+", b" ")))
    return None


def path_value(raw_path: bytes, prefix: bytes, suffix: bytes) -> str | bytes:
    """The percent-decoded segment between ``prefix`` and ``suffix`` of ``raw_path``."""
    segment = raw_path
    if prefix and segment.startswith(prefix):
        segment = segment[len(prefix) :]
    if suffix and segment.endswith(suffix):
        segment = segment[: -len(suffix)]
    return text_value(unquote_to_bytes(segment))


def json_value(body: bytes, path: str) -> object:
    """The value at dotted ``path`` of JSON ``body`` (``None`` if absent or not JSON)."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    return get_path(document, path)[1]


def multipart_value(body: bytes, content_type: str, name: str) -> str | bytes | None:
    """The content of the non-file field ``name`` of a ``multipart/form-data`` body."""
    head = b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n"
    message = email.message_from_bytes(head + body, policy=email.policy.compat32)
    parts = message.get_payload()
    if not isinstance(parts, list):
        return None
    for part in parts:
        if not isinstance(part, email.message.Message):
            continue
        if part.get_param("name", header="content-disposition") == name and not part.get_param(
            "filename", header="content-disposition"
        ):
            data = part.get_payload(decode=True)
            return text_value(data) if isinstance(data, bytes) else None
    return None
