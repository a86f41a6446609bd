"""The HTML report of a contract card: one self-contained file, safe to open.

:func:`render_html` writes a single page with its style and a few lines of script
inline: no network access (a Content-Security-Policy forbids any), no external asset.
It shows the transformation map, then every rewritten payload side by side, sent and
received, with each changed code point highlighted and every invisible or control
character as a visible ``U+XXXX`` badge, then the payloads that failed. Selecting a
family or a kind filters the page; the choice lives in the URL fragment
(``report.html#family=quotes&kind=quote.straighten``), so a filtered view can be
linked. All payload text is escaped: payloads contain ``<script>`` and friends.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import codepoints, safe
from fidelity._report.html_text import render_units

if TYPE_CHECKING:
    from fidelity._compare.transformation import Transformation
    from fidelity._report.card_records import (
        CardExample,
        CardFacts,
        CardObservation,
        CardRow,
        CardValue,
    )

__all__ = ["render_html"]

#: No network at all: inline style and script only.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

#: Transformations listed per payload before the rest are counted.
MAX_LISTED = 12
#: Code points shown in a map cell's example before it is abbreviated.
EXAMPLE_POINTS = 8

_FAILURES = ("rejected", "lost", "timeout", "broken")

_STYLE = """
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

_SCRIPT = """
(function () {
  var fam = document.getElementById('f-family');
  var kind = document.getElementById('f-kind');
  var count = document.getElementById('f-count');
  function wanted() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      var i = pair.indexOf('=');
      if (i > 0) {
        out[decodeURIComponent(pair.slice(0, i))] = decodeURIComponent(pair.slice(i + 1));
      }
    });
    return out;
  }
  function choose(select, value) {
    select.value = value || '';
    if (select.value !== (value || '')) { select.value = ''; }
  }
  function apply() {
    var f = fam.value, k = kind.value, shown = 0, total = 0;
    document.querySelectorAll('.f-item').forEach(function (el) {
      var fs = (el.getAttribute('data-families') || '').split(' ');
      var ks = (el.getAttribute('data-kinds') || '').split(' ');
      var ok = (!f || fs.indexOf(f) >= 0) && (!k || ks.indexOf(k) >= 0);
      if (ok) { el.removeAttribute('hidden'); } else { el.setAttribute('hidden', ''); }
      if (el.classList.contains('obs') || el.classList.contains('fail')) {
        total += 1; if (ok) { shown += 1; }
      }
    });
    document.body.setAttribute('data-filter', 'family=' + f + ';kind=' + k);
    count.textContent = (f || k) ? shown + ' of ' + total + ' payloads shown' : total + ' payloads';
  }
  function fromHash() { var w = wanted(); choose(fam, w.family); choose(kind, w.kind); apply(); }
  function toHash() {
    var parts = [];
    if (fam.value) { parts.push('family=' + encodeURIComponent(fam.value)); }
    if (kind.value) { parts.push('kind=' + encodeURIComponent(kind.value)); }
    location.hash = parts.join('&');
    apply();
  }
  fam.addEventListener('change', toHash);
  kind.addEventListener('change', toHash);
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
"""


def _esc(text: str) -> str:
    """Terminal-safe (badged) and HTML-escaped text for labels and messages."""
    return html.escape(safe(text), quote=True)


def _attr(values: Iterable[str]) -> str:
    return html.escape(" ".join(values), quote=True)


def _value(value: CardValue | None) -> str | bytes | object:
    return None if value is None else value.value()


def _side(value: object, marks: list[tuple[int, int]], css: str) -> str:
    if isinstance(value, (str, bytes)):
        note = (
            '<span class="value-type">bytes, not UTF-8: </span>' if isinstance(value, bytes) else ""
        )
        return note + render_units(value, marks)
    kind = "null" if value is None else type(value).__name__
    return f'<mark><span class="value-type">{html.escape(kind)}</span> {_esc(repr(value))}</mark>'


def _changes(sent: str, received: object) -> tuple[Transformation, ...]:
    from fidelity._compare.api import compare

    return compare(sent, received).transformations


def _offsets(t: Transformation) -> str:
    return (
        f"code points {t.sent_start}\u2013{t.sent_end} \u2192 {t.received_start}\u2013"
        f"{t.received_end}, bytes {t.sent_byte_start}\u2013{t.sent_byte_end} \u2192 "
        f"{t.received_byte_start}\u2013{t.received_byte_end}"
    )


def _points(text: str) -> str:
    if len(text) <= EXAMPLE_POINTS:
        return codepoints(text) or "(empty)"
    return f"{codepoints(text[:EXAMPLE_POINTS])} \u2026 ({len(text)} code points)"


def _change_item(t: Transformation) -> str:
    detail = f" ({_esc(t.detail)})" if t.detail else ""
    return (
        f'<li><span class="kind">{_esc(t.kind)}</span>{detail} '
        f"<code>{_esc(_points(t.sent))}</code> \u2192 <code>{_esc(_points(t.received))}</code>"
        f" <span>{_offsets(t)}</span></li>"
    )


def _direction(direction: str) -> str:
    return direction.replace("_", " ")


def _observation(obs: CardObservation, families: tuple[str, ...]) -> str:
    sent = _value(obs.sent)
    received = _value(obs.received)
    assert isinstance(sent, str)
    changes = _changes(sent, received)
    sent_marks = [(t.sent_byte_start, t.sent_byte_end) for t in changes]
    received_marks = [(t.received_byte_start, t.received_byte_end) for t in changes]
    kinds = obs.kinds or tuple(sorted({t.kind for t in changes}))
    listed = "".join(_change_item(t) for t in changes[:MAX_LISTED])
    if len(changes) > MAX_LISTED:
        listed += f"<li>\u2026 and {len(changes) - MAX_LISTED} more</li>"
    kind_tags = "".join(f'<span class="kind">{_esc(k)}</span>' for k in kinds)
    blame = f'<span class="dir">first changed by {_esc(obs.blame)}</span>' if obs.blame else ""
    return (
        f'<section class="obs f-item" data-families="{_attr(families)}" '
        f'data-kinds="{_attr(kinds)}">'
        f'<h3><span class="id">{_esc(obs.payload_id or "(unnamed payload)")}</span>'
        f'<span class="dir">{_esc(_direction(obs.direction))}</span> {kind_tags}{blame}</h3>'
        '<div class="pair">'
        f'<div class="side sent"><div class="label">sent</div>'
        f'<div class="text">{_side(sent, sent_marks, "del")}</div></div>'
        f'<div class="side received"><div class="label">received</div>'
        f'<div class="text">{_side(received, received_marks, "ins")}</div></div>'
        f'</div><ul class="changes">{listed}</ul></section>'
    )


def _example(example: CardExample) -> str:
    sent = example.sent.value()
    key = f'<span class="kind">{_esc(example.key)}</span>'
    if example.key in _FAILURES or example.received is None or not isinstance(sent, str):
        message = f"{example.error_type}: {example.error}" if example.error_type else example.error
        return f"{key} <code>{_esc(_points(str(sent)))}</code> {_esc(message[:160])}"
    received = example.received.value()
    change = next((t for t in _changes(sent, received) if t.kind == example.key), None)
    if change is None:
        return f"{key} <code>{_esc(_points(sent))}</code>"
    return (
        f"{key} <code>{_esc(_points(change.sent))}</code> \u2192 "
        f"<code>{_esc(_points(change.received))}</code>"
    )


def _map_row(row: CardRow, split: bool) -> str:
    statuses = ", ".join(f"{n} {s}" for s, n in row.statuses)
    kinds = "".join(f'<span class="kind">{_esc(k)}</span>' for k in row.kinds)
    examples = "<br>".join(_example(e) for e in row.examples)
    direction = f"<td>{_esc(_direction(row.direction))}</td>" if split else ""
    return (
        f'<tr class="f-item row" data-families="{_attr([row.family])}" '
        f'data-kinds="{_attr(row.kinds)}"><td>{_esc(row.family)}</td>{direction}'
        f'<td><span class="outcome o-{_attr([row.outcome])}">{_esc(row.outcome)}</span>'
        f"<br><small>{_esc(statuses)}</small></td>"
        f"<td>{kinds or '<span class=none>none</span>'}</td><td>{examples}</td></tr>"
    )


def _failure_row(obs: CardObservation, families: tuple[str, ...]) -> str:
    sent = _value(obs.sent)
    message = f"{obs.error_type}: {obs.error}" if obs.error_type else obs.error
    return (
        f'<tr class="f-item fail" data-families="{_attr(families)}" data-kinds="">'
        f"<td><code>{_esc(obs.payload_id)}</code></td><td>{_esc(_direction(obs.direction))}</td>"
        f'<td><span class="outcome o-{_attr([obs.status])}">{_esc(obs.status)}</span></td>'
        f"<td><code>{_esc(_points(str(sent)))}</code></td><td>{_esc(message[:300])}</td></tr>"
    )


def _options(values: Iterable[str], everything: str) -> str:
    items = [f'<option value="">{html.escape(everything)}</option>']
    items += [f'<option value="{_attr([v])}">{_esc(v)}</option>' for v in values]
    return "".join(items)


def render_html(
    name: str,
    facts: CardFacts,
    rows: Sequence[CardRow],
    observations: Sequence[CardObservation],
) -> str:
    """The self-contained HTML report of ``card``."""
    from fidelity._report.outcomes import family_key

    measured = []
    for obs in observations:
        for item in (obs, *obs.parts):
            measured.append((item, obs.families or item.families))
    families = sorted({f for _, fams in measured for f in fams} | {r.family for r in rows},
                      key=family_key)  # fmt: skip
    kinds = sorted({k for r in rows for k in r.kinds} | {k for o, _ in measured for k in o.kinds})
    split = any(r.direction != "round_trip" for r in rows)
    rewritten = [_observation(o, f) for o, f in measured if o.status == "transformed"]
    failed = [_failure_row(o, f) for o, f in measured if o.status in _FAILURES]
    f = facts
    facts_line = (
        f"Chain {f.chain}; param-fidelity {f.version}, {f.date}; {f.catalogue_size} catalogue "
        f"payloads, {f.examples} generated examples, seed {'none' if f.seed is None else f.seed}; "
        f"allowed kinds: {', '.join(f.allow) or 'none'}."
    )
    warning = (
        ""
        if f.complete
        else '<p class="warning">This run was interrupted: the report holds only the '
        "payloads observed before it stopped.</p>"
    )
    direction_head = "<th>direction</th>" if split else ""
    map_rows = "".join(_map_row(r, split) for r in rows) or (
        '<tr><td colspan="5" class="none">no payloads observed</td></tr>'
    )
    failures = (
        "<h2>Failed payloads</h2><table><thead><tr><th>payload</th><th>direction</th>"
        f"<th>status</th><th>sent</th><th>error</th></tr></thead><tbody>{''.join(failed)}"
        "</tbody></table>"
        if failed
        else ""
    )
    body = "".join(rewritten) or '<p class="none">No payload was rewritten.</p>'
    title = _esc(name)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="param-fidelity {html.escape(f.version)}">
<title>Parameter transformations: {title}</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>Parameter transformations: {title}</h1>
<p class="facts">{_esc(facts_line)}</p>
{warning}
<div class="filters">
<label>family <select id="f-family">{_options(families, "all families")}</select></label>
<label>kind <select id="f-kind">{_options(kinds, "all kinds")}</select></label>
<span id="f-count">{len(rewritten) + len(failed)} payloads</span>
</div>
</header>
<main>
<h2>Transformation map</h2>
<table id="map"><thead><tr><th>family</th>{direction_head}<th>outcome</th><th>kinds</th>
<th>smallest examples</th></tr></thead><tbody>{map_rows}</tbody></table>
<h2>Rewritten payloads ({len(rewritten)})</h2>
<div id="rewritten">{body}</div>
{failures}
</main>
<script>{_SCRIPT}</script>
</body>
</html>
"""
