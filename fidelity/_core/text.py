"""Text on both sides is bytes first: conversions between ``str`` and UTF-8 bytes.

Strings are encoded as UTF-8 with ``surrogatepass`` so that lone surrogates, which
agents and JSON encoders do produce, are representable and comparable.
"""

from __future__ import annotations

__all__ = ["from_utf8", "to_utf8", "utf8_len"]


def to_utf8(text: str) -> bytes:
    """Encode ``text`` as UTF-8, lone surrogates included (``surrogatepass``)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def from_utf8(data: bytes) -> str | None:
    """Decode UTF-8 (``surrogatepass``), or return ``None`` when ``data`` is not UTF-8."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def utf8_len(text: str) -> int:
    """The length of ``text`` in UTF-8 bytes (lone surrogates count three bytes)."""
    if text.isascii():
        return len(text)
    return len(to_utf8(text))
