"""Content codings of an HTTP response body, undone with a bound on every step.

httpx unpacks every layer of a chunk in one call before anything counts its size: a
body of a few hundred bytes with ``Content-Encoding: gzip, gzip, gzip`` grows to
gigabytes in memory. :class:`BodyDecoder` takes the raw bytes instead and undoes one
coding (``gzip``, ``x-gzip``, ``deflate``; ``identity`` is none) asking zlib for no
more output than the body may still grow (``max_body``), so the decoded body costs at
most ``max_body`` bytes whatever was sent. Stacked codings and codings it does not
know are refused (:class:`CodingRefused`) before anything is decoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from fidelity._core.render import safe

__all__ = ["BodyDecoder", "BodyTooLarge", "CodingRefused", "DecodeFailed"]

#: Codings undone here, by name, with zlib's window bits for each (deflate is tried
#: with the zlib wrapper first, then raw, as httpx does).
_CODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class CodingRefused(Exception):
    """The response's ``Content-Encoding`` is stacked or unknown; one sentence says which."""


class BodyTooLarge(Exception):
    """The decoded body would pass ``max_body`` bytes."""


class DecodeFailed(Exception):
    """The body is not valid in its coding (zlib's reason in the message)."""


class BodyDecoder:
    """Undo ``coding`` (a ``Content-Encoding`` header value, or ``None``) on raw chunks,
    never giving more than ``max_body`` bytes in all; with ``per_piece``, no piece of
    more than ``max_body + 1`` bytes (the caller counts them: a stream of events may be
    longer than one event's bound)."""

    def __init__(self, coding: str | None, max_body: int, *, per_piece: bool = False) -> None:
        self.max_body = max_body
        self.per_piece = per_piece
        self.size = 0
        self.coding = _coding(coding)
        self._zlib: zlib._Decompress | None = None
        self._first = True
        if self.coding is not None:
            self._zlib = zlib.decompressobj(_CODINGS[self.coding])

    def feed(self, data: bytes) -> bytes:
        """The decoded bytes of the raw chunk ``data``."""
        return b"".join(self.pieces(data))

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of the raw chunk ``data``, in pieces of bounded size."""
        if self._zlib is None:
            yield self._count(data)
            return
        while data and not self._zlib.eof:
            piece = self._decompress(data)
            data = self._zlib.unconsumed_tail
            yield self._count(piece)

    def finish(self) -> bytes:
        """What the decoder still holds once every raw chunk was fed."""
        if self._zlib is None:
            return b""
        try:
            rest = self._zlib.flush(min(self._room(), 1 << 16))
        except zlib.error as exc:
            raise DecodeFailed(str(exc)) from None
        return self._count(rest)

    def _decompress(self, data: bytes) -> bytes:
        assert self._zlib is not None
        try:
            piece = self._zlib.decompress(data, self._room())
        except zlib.error as exc:
            if not (self._first and self.coding == "deflate"):
                raise DecodeFailed(str(exc)) from None
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no wrapper
            self._first = False
            return self._decompress(data)
        self._first = False
        return piece

    def _room(self) -> int:
        """The most output the next step may give: one byte more tells "too large"."""
        return self.max_body + 1 if self.per_piece else self.max_body - self.size + 1

    def _count(self, piece: bytes) -> bytes:
        self.size += len(piece)
        if self.size > self.max_body and not self.per_piece:
            raise BodyTooLarge
        return piece


def _coding(header: str | None) -> str | None:
    """The one coding to undo (``None``: the body is as sent), or ``CodingRefused``."""
    if header is None:
        return None
    codings = [c.strip().lower() for c in header.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return None
    if len(codings) > 1:
        raise CodingRefused(
            f"Content-Encoding {safe(header[:80])!r} stacks {len(codings)} codings; "
            "a response body is read with one coding at most (gzip, x-gzip or deflate)"
        )
    if codings[0] not in _CODINGS:
        raise CodingRefused(
            f"Content-Encoding {safe(header[:80])!r} is not a coding the probe decodes "
            "(gzip, x-gzip or deflate)"
        )
    return codings[0]
