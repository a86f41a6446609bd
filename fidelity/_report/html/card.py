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
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._report.display import FAILURES
from fidelity._report.html.parts import (
    STYLE,
    attr,
    changes,
    document,
    esc,
    pair,
    points,
    value,
)

if TYPE_CHECKING:
    from fidelity._report.card_records import (
        CardExample,
        CardFacts,
        CardObservation,
        CardRow,
    )
    from fidelity._report.hints import Hint

__all__ = ["FILTER_SCRIPT", "CardParts", "card_parts", "filters", "render_html", "sent_count"]

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
    count.textContent = (f || k) ? shown + ' of ' + total + ' listed shown'
      : count.getAttribute('data-all');
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


def _direction(direction: str) -> str:
    return direction.replace("_", " ")


def _observation(obs: CardObservation, families: tuple[str, ...]) -> str:
    sent = value(obs.sent)
    assert isinstance(sent, str)
    shown, found = pair(sent, value(obs.received))
    kinds = obs.kinds or found
    kind_tags = "".join(f'<span class="kind">{esc(k)}</span>' for k in kinds)
    blame = f'<span class="dir">first changed by {esc(obs.blame)}</span>' if obs.blame else ""
    return (
        f'<section class="obs f-item" data-families="{attr(families)}" '
        f'data-kinds="{attr(kinds)}">'
        f'<h3><span class="id">{esc(obs.payload_id or "(unnamed payload)")}</span>'
        f'<span class="dir">{esc(_direction(obs.direction))}</span> {kind_tags}{blame}</h3>'
        f"{shown}</section>"
    )


def _example(example: CardExample) -> str:
    sent = example.sent.value()
    key = f'<span class="kind">{esc(example.key)}</span>'
    if example.key in FAILURES or example.received is None or not isinstance(sent, str):
        message = f"{example.error_type}: {example.error}" if example.error_type else example.error
        return f"{key} <code>{esc(points(str(sent)))}</code> {esc(message[:160])}"
    received = example.received.value()
    change = next((t for t in changes(sent, received) if t.kind == example.key), None)
    if change is None:
        return f"{key} <code>{esc(points(sent))}</code>"
    return (
        f"{key} <code>{esc(points(change.sent))}</code> \u2192 "
        f"<code>{esc(points(change.received))}</code>"
    )


def _map_row(row: CardRow, split: bool) -> str:
    statuses = ", ".join(f"{n} {s}" for s, n in row.statuses)
    kinds = "".join(f'<span class="kind">{esc(k)}</span>' for k in row.kinds)
    examples = "<br>".join(_example(e) for e in row.examples)
    direction = f"<td>{esc(_direction(row.direction))}</td>" if split else ""
    return (
        f'<tr class="f-item row" data-families="{attr([row.family])}" '
        f'data-kinds="{attr(row.kinds)}"><td>{esc(row.family)}</td>{direction}'
        f'<td><span class="outcome o-{attr([row.outcome])}">{esc(row.outcome)}</span>'
        f"<br><small>{esc(statuses)}</small></td>"
        f"<td>{kinds or '<span class=none>none</span>'}</td><td>{examples}</td></tr>"
    )


def _failure_row(obs: CardObservation, families: tuple[str, ...]) -> str:
    sent = value(obs.sent)
    message = f"{obs.error_type}: {obs.error}" if obs.error_type else obs.error
    return (
        f'<tr class="f-item fail" data-families="{attr(families)}" data-kinds="">'
        f"<td><code>{esc(obs.payload_id)}</code></td><td>{esc(_direction(obs.direction))}</td>"
        f'<td><span class="outcome o-{attr([obs.status])}">{esc(obs.status)}</span></td>'
        f"<td><code>{esc(points(str(sent)))}</code></td><td>{esc(message[:300])}</td></tr>"
    )


_CODE = re.compile(r"`([^`]+)`")


def _hint(hint: Hint, rows: Sequence[CardRow]) -> str:
    """One hint as a list item, filtered with the families whose rows show its kind.

    The text is the project's own, with code in backticks; it is escaped like anything
    else, then the code spans are set as ``<code>``."""
    families = sorted({r.family for r in rows if hint.kind in r.kinds})
    where = f' <span class="dir">{esc(hint.where)}</span>' if hint.where else ""
    text = _CODE.sub(r"<code>\1</code>", esc(hint.text))
    return (
        f'<li class="f-item hint" data-families="{attr(families)}" '
        f'data-kinds="{attr([hint.kind])}"><span class="kind">{esc(hint.kind)}</span>'
        f"{where}: {text}</li>"
    )


def _options(values: Iterable[str], everything: str) -> str:
    items = [f'<option value="">{html.escape(everything)}</option>']
    items += [f'<option value="{attr([v])}">{esc(v)}</option>' for v in values]
    return "".join(items)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardParts:
    """The pieces of one card's report, as HTML: what a page of one card or of several
    (``fidelity probe --all-tools``) is made of."""

    families: tuple[str, ...]
    kinds: tuple[str, ...]
    facts_line: str
    interrupted: str
    map_table: str
    rewritten: tuple[str, ...]
    failed: tuple[str, ...]
    failures: str
    fixes: str = ""


def _facts_line(f: CardFacts) -> str:
    """The facts of one card in a sentence or two (escaped where it is shown)."""
    facts_line = (
        f"Chain {f.chain}; param-fidelity {f.version}, {f.date}; {f.catalogue_size} catalogue "
        f"payloads, {f.examples} generated examples, seed {'none' if f.seed is None else f.seed}; "
        f"allowed kinds: {', '.join(f.allow) or 'none'}."
    )
    if f.environment is not None and f.environment.items():
        facts_line += f" Measured on {f.environment.brief()}."
    return facts_line


def _interrupted(f: CardFacts) -> str:
    """The warning of an interrupted run, ``""`` for a complete one."""
    return (
        ""
        if f.complete
        else '<p class="warning">This run was interrupted: the report holds only the '
        "payloads observed before it stopped.</p>"
    )


def _map_table(rows: Sequence[CardRow], split: bool, table_id: str) -> str:
    """The map table, with a direction column when ``split``."""
    direction_head = "<th>direction</th>" if split else ""
    map_rows = "".join(_map_row(r, split) for r in rows) or (
        '<tr><td colspan="5" class="none">no payloads observed</td></tr>'
    )
    table_attr = f' id="{attr([table_id])}"' if table_id else ' class="map"'
    return (
        f"<table{table_attr}><thead><tr><th>family</th>{direction_head}<th>outcome</th>"
        "<th>kinds</th>\n<th>smallest examples</th></tr></thead><tbody>"
        f"{map_rows}</tbody></table>"
    )


def _failures(failed: Sequence[str], heading: str) -> str:
    """The table of failed payloads under ``heading``, ``""`` when none failed."""
    return (
        f"<{heading}>Failed payloads</{heading}><table><thead><tr><th>payload</th>"
        "<th>direction</th>"
        f"<th>status</th><th>sent</th><th>error</th></tr></thead><tbody>{''.join(failed)}"
        "</tbody></table>"
        if failed
        else ""
    )


def _fixes(hints: Sequence[Hint], rows: Sequence[CardRow], heading: str, table_id: str) -> str:
    """How to fix each rewrite under ``heading``, ``""`` without hints."""
    hints_attr = ' id="hints"' if table_id else ' class="hints"'
    return (
        f"<{heading}>How to fix each rewrite</{heading}><ul{hints_attr}>"
        f"{''.join(_hint(h, rows) for h in hints)}</ul>"
        if hints
        else ""
    )


def card_parts(
    facts: CardFacts,
    rows: Sequence[CardRow],
    observations: Sequence[CardObservation],
    *,
    heading: str = "h2",
    table_id: str = "map",
    hints: Sequence[Hint] = (),
) -> CardParts:
    """The map table (``table_id`` as its id, none when empty), how to fix each rewrite
    (``hints``), the rewritten payloads, the failed ones (under a ``heading``) and the
    facts of one card."""
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
    failed = [_failure_row(o, f) for o, f in measured if o.status in FAILURES]
    return CardParts(
        families=tuple(families),
        kinds=tuple(kinds),
        facts_line=_facts_line(facts),
        interrupted=_interrupted(facts),
        map_table=_map_table(rows, split, table_id),
        rewritten=tuple(rewritten),
        failed=tuple(failed),
        failures=_failures(failed, heading),
        fixes=_fixes(hints, rows, heading, table_id),
    )


def sent_count(sent: int, listed: int) -> str:
    """The filter bar's count when nothing is filtered: every payload sent counts, the
    preserved ones too; the page lists the others."""
    plural = "" if sent == 1 else "s"
    return f"{sent} payload{plural} sent, {listed} listed below (rewritten or failed)"


def filters(families: Sequence[str], kinds: Sequence[str], count: str) -> str:
    """The filter bar (family, kind, the count the script keeps current)."""
    return f"""<div class="filters">
<label>family <select id="f-family">{_options(families, "all families")}</select></label>
<label>kind <select id="f-kind">{_options(kinds, "all kinds")}</select></label>
<span id="f-count" data-all="{attr([count])}">{esc(count)}</span>
</div>"""


#: The script that applies the filter bar to every ``.f-item`` of a page.
FILTER_SCRIPT = _SCRIPT


def render_html(
    name: str,
    facts: CardFacts,
    rows: Sequence[CardRow],
    observations: Sequence[CardObservation],
    hints: Sequence[Hint] = (),
    *,
    notes: Sequence[str] = (),
) -> str:
    """The self-contained HTML report of ``card``, with how to fix each rewrite;
    ``notes`` are sentences shown under the map (an edit that did not apply)."""
    parts = card_parts(facts, rows, observations, hints=hints)
    noted = "".join(f'<p class="note silent">{esc(n)}</p>\n' for n in notes)
    count = sent_count(len(observations), len(parts.rewritten) + len(parts.failed))
    body = "".join(parts.rewritten) or '<p class="none">No payload was rewritten.</p>'
    return document(
        title=f"Parameter transformations: {name}",
        version=facts.version,
        style=STYLE,
        body=f"""<header>
<h1>Parameter transformations: {esc(name)}</h1>
<p class="facts">{esc(parts.facts_line)}</p>
{parts.interrupted}
{filters(parts.families, parts.kinds, count)}
</header>
<main>
<h2>Transformation map</h2>
{parts.map_table}
{noted}{parts.fixes}
<h2>Rewritten payloads ({len(parts.rewritten)})</h2>
<div id="rewritten">{body}</div>
{parts.failures}
</main>""",
        script=_SCRIPT,
    )
