"""Text as other runtimes see it, written here apart from the code under test, so that
a test can state what should have gone on the wire: UTF-16 code units, JavaScript's
``JSON.stringify``, lone surrogates."""

from __future__ import annotations

__all__ = ["has_surrogate", "js_string", "utf16_units"]


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (U+D800 to U+DFFF)."""
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def utf16_units(text: str) -> str:
    """UTF-16 code units taken for code points, as a UCS-2 reader does (an astral
    character becomes its two surrogates)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(u) for u in memoryview(data).cast("H"))


def js_string(text: str) -> bytes:
    """The bytes of ``JSON.stringify(text)`` as ES2019 writes them (well-formed JSON:
    lone surrogates escaped), from the UTF-16 code units."""
    data = text.encode("utf-16-le", "surrogatepass")
    units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
    short = {0x22: b'\\"', 0x5C: b"\\\\", 0x08: b"\\b", 0x0C: b"\\f", 0x0A: b"\\n"}
    short |= {0x0D: b"\\r", 0x09: b"\\t"}
    out = [b'"']
    i = 0
    while i < len(units):
        unit = units[i]
        pair = i + 1 < len(units) and 0xD800 <= unit <= 0xDBFF and 0xDC00 <= units[i + 1] <= 0xDFFF
        if unit in short:
            out.append(short[unit])
        elif unit < 0x20 or (0xD800 <= unit <= 0xDFFF and not pair):
            out.append(b"\\u%04x" % unit)
        elif pair:
            point = 0x10000 + ((unit - 0xD800) << 10) + (units[i + 1] - 0xDC00)
            out.append(chr(point).encode("utf-8"))
            i += 1
        else:
            out.append(chr(unit).encode("utf-8"))
        i += 1
    out.append(b'"')
    return b"".join(out)
