"""Gzip bombs for the test servers: small bodies that unpack to 2 GiB of zero bytes.

``zeros_gzip()`` is one gzip member of 2 GiB of zeros, made without compressing them
all (after a full flush every MiB compresses to the same bytes, so one is repeated);
``stacked_bomb()`` is that member gzipped twice more, for ``Content-Encoding: gzip,
gzip, gzip`` (under 300 bytes).
"""

from __future__ import annotations

import functools
import gzip
import struct
import zlib

#: The bomb's size once unpacked, in MiB, and the CRC-32 of that many zero bytes.
ZEROS_MIB = 2048
_ZEROS_CRC = 0x4DBDF21C


@functools.cache
def zeros_gzip() -> bytes:
    """One gzip member of 2 GiB of zero bytes (about 2 MB)."""
    zero = b"\0" * (1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = compressor.compress(zero) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(zero) + compressor.flush(zlib.Z_FULL_FLUSH)
    body = first + again * (ZEROS_MIB - 1) + compressor.flush()
    trailer = struct.pack("<II", _ZEROS_CRC, (ZEROS_MIB << 20) & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + trailer


@functools.cache
def stacked_bomb() -> bytes:
    """Three layers of gzip over 2 GiB of zero bytes: ``Content-Encoding: gzip, gzip, gzip``."""
    return gzip.compress(gzip.compress(zeros_gzip(), 9), 9)
