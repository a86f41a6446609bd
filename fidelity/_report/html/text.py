"""Payload text as HTML: every byte escaped, invisible characters as badges, edits marked.

A value is cut into units, each with its span of UTF-8 bytes: a code point for text
(lone surrogates included), a single byte where received bytes are not UTF-8. Units
inside a changed byte range are wrapped in ``<mark>``; units that a reader could not
see or that would disturb the page (controls, format and bidi characters, separators,
spaces other than U+0020, surrogates, combining marks with nothing to attach to) become
``<span class="cp">U+XXXX</span>`` badges whose title names the character. Long values
are shown around their edits only, with the elided stretches counted; a value longer
than ``MAX_UNITS`` is shown in part (its first ``MAX_UNITS`` units), with its size, so
a reply of many MiB costs no more than that to render.
"""

from __future__ import annotations

import bisect
import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from fidelity._core.render import badge, is_unsafe

__all__ = ["Unit", "render_units", "units_of"]

#: Code points of context kept on each side of an edit in a long value.
CONTEXT = 60
#: Values up to this many units are shown whole.
WHOLE = 400
#: Units of a value looked at, at most; the rest is counted, not shown.
MAX_UNITS = 20_000


@dataclass(frozen=True, slots=True)
class Unit:
    """One code point (``text``) or one undecodable byte (``byte``) and its byte span."""

    text: str
    byte: int | None
    start: int
    end: int


def _utf8_len(cp: int) -> int:
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    return 3 if cp < 0x10000 else 4


def units_of(value: str | bytes) -> list[Unit]:
    """Cut ``value`` into units with their UTF-8 byte spans."""
    units: list[Unit] = []
    if isinstance(value, str):
        pos = 0
        for char in value:
            size = _utf8_len(ord(char))
            units.append(Unit(char, None, pos, pos + size))
            pos += size
        return units
    pos = 0
    while pos < len(value):
        lead = value[pos]
        size = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4
        size = size if lead < 0xF8 and (lead < 0x80 or lead >= 0xC0) else 1
        chunk = value[pos : pos + size]
        try:
            char = chunk.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            units.append(Unit("", lead, pos, pos + 1))
            pos += 1
            continue
        units.append(Unit(char, None, pos, pos + size))
        pos += size
    return units


def _size(value: str | bytes) -> str:
    if isinstance(value, bytes):
        return f"{len(value)} bytes in all"
    size = len(value.encode("utf-8", "surrogatepass"))
    return f"{len(value)} code points ({size} bytes) in all"


def _unit_html(unit: Unit, prev: Unit | None) -> str:
    if unit.byte is not None:
        return (
            f'<span class="cp bad" title="byte 0x{unit.byte:02X}, not UTF-8">'
            f"\\x{unit.byte:02X}</span>"
        )
    char = unit.text
    cat = unicodedata.category(char)
    orphan_mark = cat in ("Mn", "Me", "Mc") and (prev is None or prev.byte is not None)
    if is_unsafe(char) or orphan_mark:
        title = html.escape(badge(char)[1:-1], quote=True)
        tail = "<br>" if char in "\n\u2028\u2029\x85" else ""
        return f'<span class="cp" title="{title}">U+{ord(char):04X}</span>{tail}'
    return html.escape(char, quote=True)


def _spans(marks: Sequence[tuple[int, int]], units: Sequence[Unit]) -> list[bool]:
    flags = [False] * len(units)
    ends = [u.end for u in units]
    for start, end in marks:
        i = bisect.bisect_right(ends, start)
        while i < len(units) and units[i].start < end:
            flags[i] = True
            i += 1
    return flags


def _visible(flags: Sequence[bool], count: int) -> list[bool]:
    if count <= WHOLE:
        return [True] * count
    show = [False] * count
    hits = [i for i, f in enumerate(flags) if f]
    for i in hits[:200]:
        for k in range(max(0, i - CONTEXT), min(count, i + CONTEXT + 1)):
            show[k] = True
    for k in range(min(count, CONTEXT)):
        show[k] = True
    return show


def render_units(value: str | bytes, marks: Sequence[tuple[int, int]]) -> str:
    """HTML for ``value`` with the byte ranges ``marks`` highlighted.

    An empty range marks the point where something was inserted on the other side
    (shown as a thin caret before the unit at that offset, or at the end).
    """
    units = units_of(value[:MAX_UNITS])
    flags = _spans([m for m in marks if m[1] > m[0]], units)
    points = {m[0] for m in marks if m[1] == m[0]}
    shown = _visible(flags, len(units))
    out: list[str] = []
    open_mark = False
    skipped = 0
    prev: Unit | None = None
    for i, unit in enumerate(units):
        if not shown[i]:
            skipped += 1
            prev = unit
            continue
        if skipped:
            if open_mark:
                out.append("</mark>")
                open_mark = False
            out.append(f'<span class="gap">\u2026 {skipped} code points \u2026</span>')
            skipped = 0
        if unit.start in points:
            out.append('<span class="caret" title="inserted on the other side"></span>')
        if flags[i] and not open_mark:
            out.append('<mark class="chg">')
            open_mark = True
        elif not flags[i] and open_mark:
            out.append("</mark>")
            open_mark = False
        out.append(_unit_html(unit, prev))
        prev = unit
    if open_mark:
        out.append("</mark>")
    if skipped:
        out.append(f'<span class="gap">\u2026 {skipped} code points \u2026</span>')
    if len(value) > MAX_UNITS:
        out.append(f'<span class="gap">\u2026 {_size(value)}: the first {MAX_UNITS} shown</span>')
        return "".join(out)
    end = units[-1].end if units else 0
    if end in points:
        out.append('<span class="caret" title="inserted on the other side"></span>')
    if not units:
        out.append('<span class="empty">(empty)</span>')
    return "".join(out)
