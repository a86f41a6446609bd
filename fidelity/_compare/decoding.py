"""Received bytes as text, even when they are not UTF-8.

Bytes that arrive are decoded as UTF-8 with the ``fidelity-bytes`` error handler: a
surrogate encoded in UTF-8 (``ED A0 80``..) decodes to that lone surrogate, as
``surrogatepass`` would, and every other undecodable byte ``0xXY`` becomes the escape
code point ``U+DCXY``, as ``surrogateescape`` would. Encoding with the same handler
gives the original bytes back, so offsets in UTF-8 bytes stay exact, and the escape
code points mark the places where the bytes were not UTF-8.
"""

from __future__ import annotations

import codecs

__all__ = ["ERRORS", "as_text", "decode", "encode", "escaped_byte", "is_escape"]

#: The codec error handler name registered by this module.
ERRORS = "fidelity-bytes"


def _decode_error(exc: UnicodeDecodeError) -> tuple[str, int]:
    data = exc.object
    start = exc.start
    chunk = data[start : start + 3]
    if (
        len(chunk) == 3
        and chunk[0] == 0xED
        and 0xA0 <= chunk[1] <= 0xBF
        and 0x80 <= chunk[2] <= 0xBF
    ):
        cp = 0xD000 | ((chunk[1] & 0x3F) << 6) | (chunk[2] & 0x3F)
        if not 0xDC80 <= cp <= 0xDCFF:
            return chr(cp), start + 3
    return chr(0xDC00 | data[start]), start + 1


def _lookup(exc: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(exc, UnicodeEncodeError):
        out = bytearray()
        for ch in exc.object[exc.start : exc.end]:
            cp = ord(ch)
            if 0xDC80 <= cp <= 0xDCFF:
                out.append(cp - 0xDC00)
            else:
                out += ch.encode("utf-8", "surrogatepass")
        return bytes(out), exc.end
    if isinstance(exc, UnicodeDecodeError):
        return _decode_error(exc)
    raise exc


codecs.register_error(ERRORS, _lookup)


def decode(data: bytes) -> str:
    """Decode received bytes: UTF-8, lone surrogates kept, bad bytes as ``U+DCXY``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", ERRORS)


def encode(text: str) -> bytes:
    """The bytes that :func:`decode` read ``text`` from."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", ERRORS)


def is_escape(char: str) -> bool:
    """True for the code points that stand for an undecodable byte."""
    return "\udc80" <= char <= "\udcff"


def escaped_byte(char: str) -> int:
    """The byte an escape code point stands for."""
    return ord(char) - 0xDC00


def as_text(value: str | bytes) -> tuple[str, bool]:
    """``value`` as text, and whether it holds escape code points (bytes not UTF-8).

    A ``str`` is taken as it is; ``bytes`` are decoded as UTF-8 with ``surrogatepass``,
    or, when they are not UTF-8, with this module's escape handler.
    """
    if isinstance(value, str):
        return value, False
    try:
        return value.decode("utf-8", "surrogatepass"), False
    except UnicodeDecodeError:
        return decode(value), True
