"""Reading Chromium's screenshots: the pixels of a PNG, with the standard library only."""

from __future__ import annotations

import struct
import zlib

__all__ = ["colours", "pixels"]


def pixels(png: bytes) -> tuple[int, int, int, bytes]:
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG (Chromium's screenshots)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    channels = 4
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data)
            assert (depth, interlace) == (8, 0)
            assert colour in (2, 6)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        ftype, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                cur[i] = (cur[i] + a) & 255
            elif ftype == 2:
                cur[i] = (cur[i] + b) & 255
            elif ftype == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[i] = (cur[i] + pred) & 255
        rows.append(cur)
        prev = cur
    return width, height, channels, b"".join(rows)


def colours(png: bytes, *, step: int = 7) -> set[bytes]:
    """The RGB colours of every ``step``-th pixel."""
    _, _, channels, data = pixels(png)
    return {data[i : i + 3] for i in range(0, len(data), channels * step)}
