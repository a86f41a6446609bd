"""The survey map as a page: hazard families by chains, in colour, and why on a click.

:func:`render_survey_html` turns the cards of several chains (one per chain, as
``fidelity survey`` makes them) into one self-contained page with the card page's
policy and escaping (:mod:`fidelity._report.html.parts`): a grid with a row per hazard
family and a column per chain, each cell coloured by the round-trip outcome, its counts
in its tooltip. A click on a cell opens that chain and family below the grid
(:mod:`fidelity._report.html.survey_cell`). A chain-group filter hides the other columns; a
kind filter marks every cell where the kind was seen. The state lives in the URL
fragment (``survey.html#chain=json%2Btext_file&family=newlines&kind=...``), so a view
can be linked. Chains of several hops get a table of which hop changed what.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fidelity._report.html.parts import STYLE, attr, document, esc
from fidelity._report.html.survey_assets import SCRIPT
from fidelity._report.html.survey_assets import STYLE as SURVEY_STYLE
from fidelity._report.html.survey_cell import (
    ChainIndex,
    blame_rows,
    blame_table,
    cell_detail,
    cell_title,
)

if TYPE_CHECKING:
    from fidelity._report.card import Card
    from fidelity._report.card_records import CardRow

__all__ = ["LEGEND", "render_survey_html"]

#: Outcomes in the legend's order: the letter the terminal map uses, the colour, what it means.
LEGEND = (
    ("preserved", ".", "#cfe9d6", "every payload arrived byte for byte"),
    ("transformed", "T", "#f2b44c", "payloads arrived rewritten"),
    ("rejected", "R", "#e4776b", "the chain refused payloads with an error"),
    ("lost", "L", "#a98bd6", "the call worked but the value was missing"),
    ("timeout", "!", "#9aa3b2", "no answer in time"),
    ("broken", "X", "#3b4252", "the chain itself failed"),
    ("mixed", "M", "", "some payloads one way, some another: the cell is split by their shares"),
)
_COLOURS = {name: colour for name, _, colour, _ in LEGEND}
_LETTERS = {name: letter for name, letter, _, _ in LEGEND}
#: The smallest share of a mixed cell an outcome gets, so that one payload stays visible.
_MIN_SHARE = 0.18
_MIXED_SAMPLE = (
    f"background:linear-gradient(to bottom,{_COLOURS['preserved']} 0% 55%,"
    f"{_COLOURS['transformed']} 55% 80%,{_COLOURS['rejected']} 80% 100%)"
)


def _fill(row: CardRow | None) -> str:
    """The cell's background: its outcome's colour, or a mixed cell split by shares."""
    if row is None:
        return ""
    if row.outcome != "mixed":
        colour = _COLOURS.get(row.outcome, "")
        return f"background:{colour}" if colour else ""
    total = sum(n for _, n in row.statuses) or 1
    shares = [(s, max(n / total, _MIN_SHARE)) for s, n in row.statuses]
    scale = sum(share for _, share in shares)
    stops, at = [], 0.0
    for status, share in shares:
        end = at + share / scale * 100
        stops.append(f"{_COLOURS.get(status, '#fff')} {at:.1f}% {end:.1f}%")
        at = end
    return f"background:linear-gradient(to bottom,{','.join(stops)})"


def _cell(chain: str, group: str, family: str, index: ChainIndex) -> str:
    row = index.row(family)
    outcome = row.outcome if row is not None else "none"
    letter = _LETTERS.get(outcome, "-")
    title = "\n".join(esc(line) for line in cell_title(chain, family, index).split("\n"))
    # A surveyed cell is a button (focusable, Enter opens it) painted by its outcome.
    extra = "" if row is None else f' tabindex="0" role="button" style="{_fill(row)}"'
    return (
        f'<td class="c col o-{attr([outcome])}" data-chain="{esc(chain)}" '
        f'data-family="{esc(family)}" data-group="{esc(group)}" '
        f'data-kinds="{attr(index.kinds(family))}" title="{title}"{extra}>{letter}</td>'
    )


def _header(
    indexes: Sequence[ChainIndex], describe: Mapping[str, str], group_of: Mapping[str, str]
) -> str:
    names = [i.card.name for i in indexes]
    runs: list[list[str]] = []
    for name in names:
        if runs and group_of.get(runs[-1][0], "") == group_of.get(name, ""):
            runs[-1].append(name)
        else:
            runs.append([name])
    groups = ""
    if any(group_of.get(n) for n in names):
        groups = (
            "<tr><th></th>"
            + "".join(
                f'<th class="group col" colspan="{len(run)}" data-group="{label}">{label}</th>'
                for run in runs
                for label in [esc(group_of.get(run[0], ""))]
            )
            + "</tr>"
        )
    heads = []
    for index in indexes:
        name = index.card.name
        lines = [name, describe.get(name) or index.card.facts.chain]
        if index.hops:
            lines.append("hops: " + " \u2192 ".join(index.hops))
        if not index.card.complete:
            lines.append("(incomplete run)")
        title = "\n".join(esc(line) for line in lines)
        incomplete = "" if index.card.complete else " incomplete"
        heads.append(
            f'<th class="chain col{incomplete}" data-group="{esc(group_of.get(name, ""))}" '
            f'title="{title}"><span>{esc(name)}</span></th>'
        )
    return f"<thead>{groups}<tr><th></th>{''.join(heads)}</tr></thead>"


def _kinds_table(indexes: Sequence[ChainIndex]) -> str:
    from fidelity._core.kinds import KINDS

    seen: dict[str, list[str]] = {}
    for index in indexes:
        for kind in sorted({k for rows in index.rows.values() for r in rows for k in r.kinds}):
            seen.setdefault(kind, []).append(index.card.name)
    if not seen:
        return '<h2>Rewrites seen</h2><p class="none">No chain rewrote any payload.</p>'
    body = "".join(
        f'<tr><td><button type="button" class="pick" data-kind="{esc(kind)}">'
        f"{esc(kind)}</button></td>"
        f"<td>{esc(KINDS[kind].summary) if kind in KINDS else ''}</td>"
        f"<td>{esc(', '.join(chains))}</td></tr>"
        for kind, chains in sorted(seen.items())
    )
    return (
        "<h2>Rewrites seen</h2><p class=facts>Pick a kind to mark the cells where it was seen.</p>"
        "<table><thead><tr><th>kind</th><th>what happened</th><th>chains</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _blame_section(indexes: Sequence[ChainIndex]) -> str:
    parts = []
    for index in indexes:
        rows = blame_rows(index)
        if not index.hops or not any(r.statuses for r in rows):
            continue
        parts.append(
            f'<div class="blame-chain"><h3>{esc(index.card.name)}</h3>'
            f'<p class="facts">{esc(" → ".join(index.hops))}</p>'
            f"{blame_table(rows, families=True)}</div>"
        )
    if not parts:
        return ""
    return (
        "<h2>Which hop changed the value</h2><p class=facts>For chains of several hops: the first "
        f"hop whose output differed from the value sent, or that refused it.</p>{''.join(parts)}"
    )


def _facts(cards: Sequence[Card]) -> str:
    def listed(values: Sequence[object]) -> str:
        return ", ".join(str(v) for v in dict.fromkeys(values))

    seeds = [c.facts.seed for c in cards if c.facts.seed is not None]
    return (
        f"param-fidelity {listed([c.facts.version for c in cards])}, "
        f"{listed([c.facts.date for c in cards])}: {len(cards)} chains; "
        f"{listed([c.facts.catalogue_size for c in cards])} catalogue payloads and "
        f"{listed([c.facts.examples for c in cards])} generated examples through each"
        + (f", seed {listed(seeds)}" if seeds else "")
        + ". Each cell is the round trip of one hazard family through one chain."
    )


def _options(values: Sequence[str], everything: str) -> str:
    items = [f'<option value="">{html.escape(everything)}</option>']
    items += [f'<option value="{esc(v)}">{esc(v)}</option>' for v in values]
    return "".join(items)


def _rows_and_details(
    indexes: Sequence[ChainIndex],
    families: Sequence[str],
    describe: Mapping[str, str],
    group_of: Mapping[str, str],
) -> tuple[list[str], list[str]]:
    """The grid's rows (one per family) and the detail of every cell."""
    rows = []
    details = []
    for family in families:
        cells = "".join(
            _cell(i.card.name, group_of.get(i.card.name, ""), family, i) for i in indexes
        )
        rows.append(f'<tr><th class="family" scope="row">{esc(family)}</th>{cells}</tr>')
        for index in indexes:
            name = index.card.name
            details.append(
                cell_detail(name, family, index, describe.get(name) or index.card.facts.chain)
            )
    return rows, details


def _group_filter(indexes: Sequence[ChainIndex], group_of: Mapping[str, str]) -> str:
    """The chains filter, ``""`` when no chain has a group."""
    chosen_groups = list(dict.fromkeys(g for i in indexes if (g := group_of.get(i.card.name, ""))))
    return (
        f'<label>chains <select id="f-group">{_options(chosen_groups, "all chains")}'
        "</select></label>"
        if chosen_groups
        else ""
    )


def _legend() -> str:
    """The legend's items: each outcome's swatch, letter and meaning."""
    return "".join(
        f'<li><span class="swatch o-{name}" style="{fill}">{letter}</span>'
        f"<b>{name}</b> {html.escape(meaning)}</li>"
        for name, letter, colour, meaning in LEGEND
        for fill in [_MIXED_SAMPLE if name == "mixed" else f"background:{colour}"]
    )


def _interrupted(cards: Sequence[Card]) -> str:
    """The warning naming the interrupted runs, ``""`` when every run completed."""
    incomplete = [c.name for c in cards if not c.complete]
    return (
        f'<p class="warning">Interrupted runs (the page holds what they observed): '
        f"{esc(', '.join(incomplete))}.</p>"
        if incomplete
        else ""
    )


def _not_surveyed(missing: Mapping[str, str]) -> str:
    """The chains that were not surveyed and why, ``""`` when none."""
    absent = "".join(f"<li><b>{esc(n)}</b>: {esc(why)}</li>" for n, why in missing.items())
    return f"<h2>Not surveyed</h2><ul>{absent}</ul>" if absent else ""


def render_survey_html(
    cards: Sequence[Card],
    *,
    descriptions: Mapping[str, str] | None = None,
    groups: Mapping[str, str] | None = None,
    missing: Mapping[str, str] | None = None,
) -> str:
    """The survey map of ``cards`` (one per chain, named by ``card.name``) as one page.

    ``descriptions`` and ``groups`` map a chain's name to what it does and to its group
    (chains without a description show their card's chain); ``missing`` maps the chains
    that were not surveyed to the reason, listed under the grid.
    """
    from fidelity._core.version import __version__
    from fidelity._report.outcomes import family_key

    describe = descriptions or {}
    group_of = groups or {}
    indexes = [ChainIndex.of(card) for card in cards]
    families = sorted({f for i in indexes for f in i.rows}, key=family_key)
    rows, details = _rows_and_details(indexes, families, describe, group_of)
    kinds = sorted({k for i in indexes for rs in i.rows.values() for r in rs for k in r.kinds})
    group_filter = _group_filter(indexes, group_of)
    legend = _legend()
    warnings = _interrupted(cards)
    absent_html = _not_surveyed(missing or {})
    grid = (
        f'<div class="scroll"><table id="grid">{_header(indexes, describe, group_of)}'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        if cards
        else '<p class="none">No chain was surveyed.</p>'
    )
    body = f"""<header>
<h1>What each chain does to each hazard family</h1>
<p class="facts">{esc(_facts(cards)) if cards else ""}</p>
{warnings}
<div class="filters">
{group_filter}
<label>kind <select id="f-kind">{_options(kinds, "all kinds")}</select></label>
<span id="count"></span>
</div>
</header>
<main>
<ul class="legend">{legend}</ul>
{grid}
<div id="details"><p id="hint">Click a cell to see that chain and family: the kinds seen and the
smallest example of each, sent and received side by side.</p>{"".join(details)}</div>
{_kinds_table(indexes)}
{_blame_section(indexes)}
{absent_html}
</main>"""
    return document(
        title=f"param-fidelity survey: {len(cards)} chains",
        version=__version__,
        style=STYLE + SURVEY_STYLE,
        body=body,
        script=SCRIPT,
    )
