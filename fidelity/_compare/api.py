"""``compare(sent, received)``: name every rewrite between what was sent and what arrived.

Both sides are text first as UTF-8 bytes: strings are compared as UTF-8 with
``surrogatepass`` (lone surrogates included), received bytes that are not UTF-8 keep
their undecodable bytes as escape code points (:mod:`fidelity._compare.decoding`). The
engine aligns the two texts by code point, classifies each difference into a kind
of the public vocabulary (``fidelity.KINDS``) and keeps a kind only when replaying its
rewrite on the sent segment reproduces the received segment
(:mod:`fidelity._compare.classify`, :mod:`fidelity._compare.rules`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fidelity._compare.decoding import as_text
from fidelity._compare.transformation import Transformation
from fidelity._core.errors import FidelityError
from fidelity._core.records import fast_init
from fidelity._core.text import to_utf8

__all__ = ["Comparison", "Transformation", "assert_faithful", "compare"]

_NO_KINDS: frozenset[str] = frozenset()
_MAX_BLOCKS = 12  # transformation blocks shown by render() before "and N more"
_CONTEXT = 10  # code points of context shown on each side of a segment


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """The result of comparing a sent value with the value that arrived.

    ``faithful`` is True when the received bytes equal the sent bytes.
    ``explained`` is True when replaying the reported kinds on the sent segments
    reproduces the received value exactly (False as soon as one edit is ``unknown``).
    """

    sent: str | bytes
    received: object
    faithful: bool
    transformations: tuple[Transformation, ...]
    explained: bool

    @property
    def kinds(self) -> frozenset[str]:
        """The kind ids of all transformations."""
        if not self.transformations:
            return _NO_KINDS
        return frozenset(t.kind for t in self.transformations)

    def render(self) -> str:
        """A terminal-safe, human-readable account of the differences.

        A header line, then one block per transformation (kind and detail, offsets
        in code points and bytes, both segments with a little context, and their code
        points with names); after a dozen blocks, a count of the rest. No raw
        control, bidi, invisible or combining-only character is ever printed.
        """
        from fidelity._compare.render import render_comparison

        return render_comparison(
            self.sent,
            self.received,
            self.transformations,
            faithful=self.faithful,
            explained=self.explained,
            max_blocks=_MAX_BLOCKS,
        )


def compare(sent: str | bytes, received: object) -> Comparison:
    """Compare ``sent`` with ``received`` and name every difference.

    ``sent`` is ``str`` or ``bytes``; ``received`` is ``str``, ``bytes`` or any other
    value (a number, boolean or null that a string was coerced into). Every
    difference becomes a :class:`Transformation` whose kind was verified by replay,
    or ``unknown``.
    """
    if type(sent) is str and type(received) is str and sent == received:
        # The common case, first: equal code points are equal UTF-8 bytes.
        return Comparison(
            sent=sent, received=received, faithful=True, transformations=(), explained=True
        )
    if not isinstance(sent, (str, bytes)):
        from fidelity._core.errors import UsageError

        raise UsageError(
            f"sent={type(sent).__name__} value must be str or bytes (the value that was sent)."
        )
    if isinstance(received, str) and isinstance(sent, str):
        if sent == received:
            return _faithful(sent, received)
    elif isinstance(received, (str, bytes)):
        sb = sent if isinstance(sent, bytes) else to_utf8(sent)
        rb = received if isinstance(received, bytes) else to_utf8(received)
        if sb == rb:
            return _faithful(sent, received)
    s_text, s_escapes = as_text(sent)
    if not isinstance(received, (str, bytes)):
        return _coerced(sent, s_text, received)
    r_text, r_escapes = as_text(received)
    from fidelity._compare.classify import classify

    findings = classify(s_text, r_text, escapes=r_escapes or s_escapes)
    if not findings:
        # Same code points, different bytes: a lone surrogate on one side stands for
        # an undecodable byte on the other.
        from fidelity._compare.classify import Finding

        findings = [
            Finding(
                kinds=(),
                sent_start=0,
                sent_end=len(s_text),
                received_start=0,
                received_end=len(r_text),
                explained=False,
            )
        ]
    transformations = tuple(
        _transformations(s_text, r_text, findings, s_escapes=s_escapes, r_escapes=r_escapes)
    )
    explained = all(f.explained for f in findings)
    return Comparison(
        sent=sent,
        received=received,
        faithful=False,
        transformations=transformations,
        explained=explained,
    )


def _faithful(sent: str | bytes, received: object) -> Comparison:
    return Comparison(
        sent=sent, received=received, faithful=True, transformations=(), explained=True
    )


def _coerced(sent: str | bytes, text: str, received: object) -> Comparison:
    from fidelity._compare.coerce import value_coercion

    detail = value_coercion(text, received)
    shown = repr(received)
    if detail is None:
        kind, detail = (
            "unknown",
            f"{type(received).__name__} value that no coercion of the text gives",
        )
    else:
        kind = "type.coerced"
    t = Transformation(
        kind=kind,
        detail=detail,
        sent=text,
        received=shown,
        sent_start=0,
        sent_end=len(text),
        received_start=0,
        received_end=len(shown),
        sent_byte_start=0,
        sent_byte_end=len(to_utf8(text)),
        received_byte_start=0,
        received_byte_end=len(to_utf8(shown)),
    )
    return Comparison(
        sent=sent,
        received=received,
        faithful=False,
        transformations=(t,),
        explained=kind != "unknown",
    )


class _ByteOffsets:
    """UTF-8 byte offsets of increasing code-point positions in one text."""

    def __init__(self, text: str, escapes: bool) -> None:
        from fidelity._compare.decoding import encode

        self.text = text
        self.ascii = text.isascii()
        self.pos = 0
        self.byte = 0
        # Escape code points stand for one undecodable byte each; otherwise a lone
        # surrogate is three bytes (surrogatepass).
        self.encode = encode if escapes else to_utf8

    def at(self, pos: int) -> int:
        if self.ascii:
            return pos
        if pos < self.pos:
            self.byte -= len(self.encode(self.text[pos : self.pos]))
        else:
            self.byte += len(self.encode(self.text[self.pos : pos]))
        self.pos = pos
        return self.byte


def _transformations(
    s: str, r: str, findings: Iterable[object], *, s_escapes: bool, r_escapes: bool
) -> Iterable[Transformation]:
    from fidelity._compare.classify import Finding

    sbytes, rbytes = _ByteOffsets(s, s_escapes), _ByteOffsets(r, r_escapes)
    for f in findings:
        assert isinstance(f, Finding)
        s0, s1, r0, r1 = f.sent_start, f.sent_end, f.received_start, f.received_end
        sb0, sb1 = sbytes.at(s0), sbytes.at(s1)
        rb0, rb1 = rbytes.at(r0), rbytes.at(r1)
        seg_s, seg_r = s[s0:s1], r[r0:r1]
        kinds = f.kinds
        if not kinds:
            shown_s = _points(seg_s, s_escapes)
            shown_r = _points(seg_r, r_escapes)
            kinds = (("unknown", f"{shown_s} -> {shown_r}"),)
        for kind, detail in kinds:
            yield Transformation(
                kind=kind,
                detail=detail,
                sent=seg_s,
                received=seg_r,
                sent_start=s0,
                sent_end=s1,
                received_start=r0,
                received_end=r1,
                sent_byte_start=sb0,
                sent_byte_end=sb1,
                received_byte_start=rb0,
                received_byte_end=rb1,
            )


def _points(segment: str, escapes: bool) -> str:
    """The first code points of an unknown segment; an undecodable byte as ``0xXY``."""
    from fidelity._compare.decoding import escaped_byte, is_escape

    if not segment:
        return "(nothing)"
    shown = " ".join(
        f"0x{escaped_byte(c):02X}" if escapes and is_escape(c) else f"U+{ord(c):04X}"
        for c in segment[:16]
    )
    return shown + (" ..." if len(segment) > 16 else "")


def assert_faithful(sent: str | bytes, received: object, allow: Iterable[str] = ()) -> None:
    """Raise ``FidelityError`` unless every kind found is in ``allow``.

    ``allow`` is a list of kind ids (``fidelity.KINDS``); an unknown id is a
    ``UsageError`` that lists the valid ones. The error's message is the rendering of
    the comparison and its ``comparison`` attribute the structured result.
    """
    from fidelity._core.kinds import check_kinds

    allowed = frozenset(check_kinds(list(allow) if not isinstance(allow, str) else allow))
    c = compare(sent, received)
    if c.faithful or c.kinds <= allowed:
        return
    raise FidelityError(c.render(), c)
