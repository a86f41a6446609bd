"""The human-readable rendering of a comparison, for terminals and pytest output.

Every piece of payload text goes through :func:`fidelity._core.render.safe`; bytes that were
not UTF-8 appear as ``[byte 0xE9]``, on the sent side as on the received side; segments
are cut and given context only at grapheme cluster boundaries, so a combining sequence or
an emoji ZWJ sequence is never split in what is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from fidelity._compare.decoding import as_text, escaped_byte, is_escape
from fidelity._compare.transformation import Transformation
from fidelity._core.render import badge, grapheme_pattern, safe

__all__ = ["render_comparison", "shown"]

_SHOWN = 60
_CONTEXT = 10
_CODEPOINTS = 10


def shown(text: str, *, escapes: bool = False) -> str:
    """``text`` made terminal-safe; with ``escapes``, undecodable bytes as ``[byte 0xXY]``."""
    if not escapes or not any(is_escape(c) for c in text):
        return safe(text)
    out: list[str] = []
    run: list[str] = []
    for c in text:
        if is_escape(c):
            if run:
                out.append(safe("".join(run)))
                run = []
            out.append(f"[byte 0x{escaped_byte(c):02X}]")
        else:
            run.append(c)
    if run:
        out.append(safe("".join(run)))
    return "".join(out)


def _clusters_prefix(text: str, limit: int) -> tuple[str, int]:
    """Whole grapheme clusters from the start of ``text``, about ``limit`` code points."""
    if len(text) <= limit:
        return text, 0
    end = 0
    for m in grapheme_pattern().finditer(text, 0, min(len(text), limit + 32)):
        if m.end() > limit and end:
            break
        end = m.end()
    return text[:end], len(text) - end


def _clusters_suffix(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    window = text[-(limit + 32) :]
    starts = [m.start() for m in grapheme_pattern().finditer(window)]
    for start in starts:
        if len(window) - start <= limit:
            return window[start:]
    return window[starts[-1] :] if starts else ""


def _names(text: str, escapes: bool) -> str:
    if not text:
        return "(nothing)"
    parts = []
    for c in text[:_CODEPOINTS]:
        if escapes and is_escape(c):
            parts.append(f"byte 0x{escaped_byte(c):02X} (not UTF-8)")
        else:
            parts.append(badge(c)[1:-1])
    more = len(text) - _CODEPOINTS
    if more > 0:
        parts.append(f"... (+{more} code points)")
    return ", ".join(parts)


def _segment_line(whole: str, start: int, end: int, escapes: bool) -> str:
    before = _clusters_suffix(whole[max(0, start - _CONTEXT - 8) : start], _CONTEXT)
    seg, hidden = _clusters_prefix(whole[start:end], _SHOWN)
    after, _ = _clusters_prefix(whole[end : end + _CONTEXT + 8], _CONTEXT)
    lead = "..." if start - len(before) > 0 else ""
    trail = "..." if end + len(after) < len(whole) else ""
    cut = f"...(+{hidden} code points)" if hidden else ""
    return (
        f"{lead}{shown(before, escapes=escapes)}\u27e6{shown(seg, escapes=escapes)}{cut}\u27e7"
        f"{shown(after, escapes=escapes)}{trail}"
    )


def _block(
    same: list[Transformation], s: str, r: str | None, *, s_escapes: bool, r_escapes: bool
) -> list[str]:
    """One block for the rewrites of one segment (two kinds can share a segment)."""
    t = same[0]
    kinds = " + ".join(f"{u.kind} ({safe(u.detail)})" if u.detail else u.kind for u in same)
    lines = [
        f"- {kinds}: sent char {t.sent_start} (byte {t.sent_byte_start}), "
        f"received char {t.received_start} (byte {t.received_byte_start})"
    ]
    lines.append(f"    sent:     {_segment_line(s, t.sent_start, t.sent_end, s_escapes)}")
    if r is None:
        lines.append(f"    received: {safe(t.received)}")
    else:
        received = _segment_line(r, t.received_start, t.received_end, r_escapes)
        lines.append(f"    received: {received}")
    lines.append(f"    code points: {_names(t.sent, s_escapes)}")
    lines.append(f"             -> {_names(t.received, r_escapes and r is not None)}")
    return lines


def _where(t: Transformation) -> tuple[int, int, int, int]:
    return (t.sent_start, t.sent_end, t.received_start, t.received_end)


def render_comparison(
    sent: str | bytes,
    received: object,
    ts: Sequence[Transformation],
    *,
    faithful: bool,
    explained: bool,
    max_blocks: int = 12,
) -> str:
    """Render a comparison: a header line, then one block per transformation (capped)."""
    if faithful:
        return "faithful: the received value equals the sent value"
    # Bytes that are not UTF-8 show as bytes on either side.
    s, s_escapes = as_text(sent)
    r: str | None = None
    r_escapes = False
    if isinstance(received, (str, bytes)):
        r, r_escapes = as_text(received)
    kinds = ", ".join(sorted({t.kind for t in ts}))
    noun = "rewrite" if len(ts) == 1 else "rewrites"
    verdict = "explained by replay" if explained else "NOT fully explained"
    lines = [f"{len(ts)} {noun}: {kinds} ({verdict})"]
    groups: list[list[Transformation]] = []
    for t in ts:
        if groups and _where(groups[-1][0]) == _where(t):
            groups[-1].append(t)
        else:
            groups.append([t])
    for same in groups[:max_blocks]:
        lines.extend(_block(same, s, r, s_escapes=s_escapes, r_escapes=r_escapes))
    rest = [t for same in groups[max_blocks:] for t in same]
    if rest:
        counts: dict[str, int] = {}
        for t in rest:
            counts[t.kind] = counts.get(t.kind, 0) + 1
        summary = ", ".join(f"{k} x{n}" for k, n in sorted(counts.items()))
        lines.append(f"... and {len(rest)} more: {summary}")
    return "\n".join(lines)
