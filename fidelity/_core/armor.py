"""The armored form of a value: evidence that no later layer can rewrite.

Reflectors answer with what they received as base64 of the exact bytes plus the code
points, so a response path that rewrites text (JSON encoders, charsets, SDKs) cannot
alter the evidence of what the request path delivered. The same form carries a value
to a reflector's ``emit`` endpoint, to measure the response path alone.

    {"base64": "4oCc", "codepoints": [8220], "text": "“"}

``codepoints`` is present when the bytes are UTF-8 (surrogates allowed); ``text`` is
informational only and never trusted on the way back.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.text import from_utf8, to_utf8

__all__ = ["armor", "unarmor"]


def armor(value: str | bytes) -> dict[str, Any]:
    """Return the armored form of ``value`` (a ``str`` is taken as its UTF-8 bytes)."""
    data = value if isinstance(value, bytes) else to_utf8(value)
    text = from_utf8(data)
    out: dict[str, Any] = {"base64": base64.b64encode(data).decode("ascii")}
    if text is not None:
        out["codepoints"] = [ord(c) for c in text]
        # JSON cannot carry lone surrogates through every encoder; keep text ASCII-safe.
        out["text"] = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return out


def unarmor(armored: object) -> str | bytes:
    """Recover the value from its armored form: ``str`` when the bytes are UTF-8.

    The ``base64`` field is authoritative. Anything malformed raises ``UsageError``.
    """
    if not isinstance(armored, dict) or not isinstance(armored.get("base64"), str):
        raise UsageError("armored value must be an object with a 'base64' string field.")
    try:
        data = base64.b64decode(armored["base64"], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise UsageError(f"armored value has invalid base64 ({exc}).") from None
    text = from_utf8(data)
    return data if text is None else text
