"""The pieces both HTML reports are made of: the page, its policy and base style, and
payloads side by side.

Every report is one self-contained page: style and script inline, no network access (the
Content-Security-Policy forbids any), no external asset. Text from payloads, chain names
and error messages reaches the page only through :func:`esc` (badges for invisible and
control characters, then HTML escaping) or :func:`~fidelity._report.html.text.render_units`
(the value cut into code points, each escaped or badged, edits marked). :func:`pair`
shows a sent value and the value that arrived side by side with every changed code point
highlighted, and lists the changes with their offsets.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable
from typing import TYPE_CHECKING

from fidelity._core.render import codepoints, safe
from fidelity._report.html.text import render_units

if TYPE_CHECKING:
    from fidelity._compare.transformation import Transformation
    from fidelity._report.card_records import CardValue

__all__ = [
    "CSP",
    "EXAMPLE_POINTS",
    "MAX_LISTED",
    "STYLE",
    "attr",
    "changes",
    "document",
    "esc",
    "pair",
    "points",
    "policy",
    "side",
    "value",
]

#: No network at all: inline style, and the page's one script by its hash (see
#: :func:`policy`); style attributes stay allowed (the survey colours its cells with
#: them; under ``default-src 'none'`` a style can load nothing).
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"


def policy(script: str) -> str:
    """The page's Content-Security-Policy: only the inline script whose text is
    ``script`` may run. A script that escaped escaping (a payload's ``<script>``, an
    ``onerror=`` attribute) is not that script, so it is refused: escaping is not the
    only defence. A hash, not a nonce, so that one card always makes the same page."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return CSP.format(digest=digest)


#: Transformations listed per payload before the rest are counted.
MAX_LISTED = 12
#: Code points shown in a map cell's example before it is abbreviated.
EXAMPLE_POINTS = 8

#: The statuses of a payload that did not arrive.

STYLE = """
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6679; --line: #d9dde5;
  --del: #ffd7d5; --ins: #cdf3d2; --badge: #e4ecff; --badge-ink: #1f3b8a; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); margin: 0; background: #f6f7f9; }
header, main { max-width: 1200px; margin: 0 auto; padding: 16px 24px; }
header { background: #fff; border-bottom: 1px solid var(--line); max-width: none; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 10px; }
.facts { color: var(--muted); font-size: 13px; margin: 0; }
.warning { background: #fff3cd; border: 1px solid #e6c35c; padding: 8px 12px;
  border-radius: 6px; margin: 10px 0 0; }
.filters { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; margin-top: 12px; }
.filters label { font-size: 13px; color: var(--muted); }
select { font: inherit; padding: 3px 6px; }
#f-count { font-size: 13px; color: var(--muted); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; vertical-align: top; padding: 6px 10px;
  border-bottom: 1px solid var(--line); font-size: 14px; }
th { background: #eef0f4; font-weight: 600; }
.outcome { font-weight: 600; white-space: nowrap; }
.o-preserved { color: #1b7a36; } .o-transformed { color: #9a5b00; } .o-mixed { color: #7a2f9a; }
.o-rejected, .o-lost, .o-timeout, .o-broken { color: #b3261e; }
.kind { display: inline-block; font: 12px/1.6 ui-monospace, SFMono-Regular, Menlo, monospace;
  background: #fff4e0; border: 1px solid #f0c987; border-radius: 4px; padding: 0 5px;
  margin: 1px 2px; }
.obs { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
  margin: 0 0 14px; }
.obs h3 { font-size: 15px; margin: 0 0 8px; font-weight: 600; }
.obs h3 .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.dir { color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 6px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.side { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; min-width: 0; }
.side .label { font-size: 12px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; margin-bottom: 4px; }
.text { font: 14px/1.7 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.sent mark { background: var(--del); } .received mark { background: var(--ins); }
mark { border-radius: 3px; padding: 1px 0; color: inherit; }
.cp { display: inline-block; font: 11px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace;
  background: var(--badge); color: var(--badge-ink); border: 1px solid #b9c8f5;
  border-radius: 3px; padding: 0 3px; margin: 0 1px; vertical-align: 1px; white-space: nowrap; }
mark .cp { border-color: #d2352c; }
.cp.bad { background: #ffe1e1; color: #8a1f1f; border-color: #f3b0b0; }
.gap, .empty { color: var(--muted); font-style: italic; font-family: system-ui, sans-serif;
  font-size: 12px; padding: 0 4px; }
.caret { display: inline-block; width: 2px; height: 1.1em; background: #d2352c;
  vertical-align: -2px; margin: 0 1px; }
.changes { margin: 8px 0 0; padding-left: 18px; font-size: 13px; color: var(--muted); }
.changes code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--ink); }
.none { color: var(--muted); font-style: italic; }
.value-type { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: #8a1f1f; }
"""


def esc(text: str) -> str:
    """Terminal-safe (badged) and HTML-escaped text for labels and messages."""
    return html.escape(safe(text), quote=True)


def attr(values: Iterable[str]) -> str:
    """Space-separated values for an attribute, HTML-escaped (quotes included)."""
    return html.escape(" ".join(values), quote=True)


def value(card_value: CardValue | None) -> str | bytes | object:
    """The value a card record holds (``None`` when nothing arrived)."""
    return None if card_value is None else card_value.value()


def side(shown: object, marks: list[tuple[int, int]]) -> str:
    """One side of a pair: text with the byte ranges ``marks`` highlighted, or a typed value."""
    if isinstance(shown, (str, bytes)):
        note = (
            '<span class="value-type">bytes, not UTF-8: </span>' if isinstance(shown, bytes) else ""
        )
        return note + render_units(shown, marks)
    kind = "null" if shown is None else type(shown).__name__
    return f'<mark><span class="value-type">{html.escape(kind)}</span> {esc(repr(shown))}</mark>'


def changes(sent: str, received: object) -> tuple[Transformation, ...]:
    """The transformations that turn ``sent`` into ``received``."""
    from fidelity._compare.api import compare

    return compare(sent, received).transformations


def _offsets(t: Transformation) -> str:
    return (
        f"code points {t.sent_start}\u2013{t.sent_end} \u2192 {t.received_start}\u2013"
        f"{t.received_end}, bytes {t.sent_byte_start}\u2013{t.sent_byte_end} \u2192 "
        f"{t.received_byte_start}\u2013{t.received_byte_end}"
    )


def points(text: str) -> str:
    """``text`` as ``U+XXXX`` code points, abbreviated past :data:`EXAMPLE_POINTS`."""
    if len(text) <= EXAMPLE_POINTS:
        return codepoints(text) or "(empty)"
    return f"{codepoints(text[:EXAMPLE_POINTS])} \u2026 ({len(text)} code points)"


def _change_item(t: Transformation) -> str:
    detail = f" ({esc(t.detail)})" if t.detail else ""
    return (
        f'<li><span class="kind">{esc(t.kind)}</span>{detail} '
        f"<code>{esc(points(t.sent))}</code> \u2192 <code>{esc(points(t.received))}</code>"
        f" <span>{_offsets(t)}</span></li>"
    )


def pair(sent: str, received: object) -> tuple[str, tuple[str, ...]]:
    """Sent and received side by side, changed code points marked, then the changes.

    Returns the HTML and the kinds of the changes (sorted).
    """
    found = changes(sent, received)
    sent_marks = [(t.sent_byte_start, t.sent_byte_end) for t in found]
    received_marks = [(t.received_byte_start, t.received_byte_end) for t in found]
    listed = "".join(_change_item(t) for t in found[:MAX_LISTED])
    if len(found) > MAX_LISTED:
        listed += f"<li>\u2026 and {len(found) - MAX_LISTED} more</li>"
    return (
        '<div class="pair">'
        f'<div class="side sent"><div class="label">sent</div>'
        f'<div class="text">{side(sent, sent_marks)}</div></div>'
        f'<div class="side received"><div class="label">received</div>'
        f'<div class="text">{side(received, received_marks)}</div></div>'
        f'</div><ul class="changes">{listed}</ul>',
        tuple(sorted({t.kind for t in found})),
    )


def document(*, title: str, version: str, style: str, body: str, script: str) -> str:
    """The whole page: policy, style, ``body`` and ``script`` inline (``title`` is escaped)."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy(script)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="param-fidelity {html.escape(version)}">
<title>{esc(title)}</title>
<style>{style}</style>
</head>
<body>
{body}
<script>{script}</script>
</body>
</html>
"""
