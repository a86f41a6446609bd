"""The HTML report of a whole server (``fidelity probe --all-tools --html``).

One self-contained page, built from the same pieces as a card's page
(:func:`~fidelity._report.html.card.card_parts`): a table of contents (each tool, its
surveyed parameters, and the parameters left out with the reason), then one section
per tool holding, per parameter, its map, its rewritten payloads side by side and its
failed ones. One filter bar (family, kind) applies to the whole page. Every name and
value is escaped: tool names and error messages come from a server that is not
trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._report.html.card import FILTER_SCRIPT, card_parts, filters, sent_count
from fidelity._report.html.parts import STYLE, attr, document, esc

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = ["render_tools_html"]

_EXTRA_STYLE = """
nav.toc ul { margin: 4px 0 12px 0; padding-left: 20px; }
nav.toc li { margin: 2px 0; }
section.tool { margin: 28px 0; border-top: 2px solid var(--line); }
section.param { margin: 16px 0 24px 0; }
.skipped td { color: var(--muted); }
"""


def render_tools_html(
    title: str,
    cards: Sequence[tuple[str, str, Card]],
    skipped: Sequence[tuple[str, str, str]],
    *,
    version: str,
    order: Sequence[str] = (),
    noun: str = "tool parameter",
) -> str:
    """The page of ``cards`` (``(tool, parameter, card)`` in run order) and ``skipped``
    (``(tool, parameter, reason)``), with a table of contents and one section per tool,
    tools in ``order`` (the server's), any others after them. ``noun`` names a row:
    ``tool parameter`` (headed ``tool.param``) or ``operation field`` (headed
    ``POST /notes body.title``)."""
    joint = "." if noun == "tool parameter" else " "
    tools: dict[str, list[tuple[str, Card]]] = {}
    for tool, param, card in cards:
        tools.setdefault(tool, []).append((param, card))
    left_out: dict[str, list[tuple[str, str]]] = {}
    for tool, param, reason in skipped:
        left_out.setdefault(tool, []).append((param, reason))
    named = [t for t in order if t in tools or t in left_out]
    every = dict.fromkeys([*named, *tools, *left_out])
    anchors = {tool: f"tool-{i}" for i, tool in enumerate(every, 1)}
    families: set[str] = set()
    kinds: set[str] = set()
    sent = listed = 0
    sections = []
    toc = []
    number = 0
    for tool, anchor in anchors.items():
        entries = []
        params = []
        for param, card in tools.get(tool, []):
            number += 1
            parts = card_parts(card.facts, card.rows, card.observations, heading="h4", table_id="")
            families.update(parts.families)
            kinds.update(parts.kinds)
            sent += len(card.observations)
            listed += len(parts.rewritten) + len(parts.failed)
            pid = f"param-{number}"
            entries.append(f'<li><a href="#{pid}"><code>{esc(param)}</code></a></li>')
            warnings = "".join(f'<p class="warning">{esc(w)}</p>' for w in card.facts.warnings)
            body = "".join(parts.rewritten) or '<p class="none">No payload was rewritten.</p>'
            params.append(
                f'<section class="param" id="{pid}"><h3><code>{esc(tool)}{joint}{esc(param)}</code>'
                f'</h3><p class="facts">{esc(parts.facts_line)}</p>{parts.interrupted}'
                f"{warnings}{parts.map_table}<h4>Rewritten payloads ({len(parts.rewritten)})"
                f"</h4><div>{body}</div>{parts.failures}</section>"
            )
        rows = "".join(
            f"<tr><td><code>{esc(param)}</code></td><td>{esc(reason)}</td></tr>"
            for param, reason in left_out.get(tool, [])
        )
        not_surveyed = (
            '<table class="skipped"><thead><tr><th>not surveyed</th><th>why</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
            if rows
            else ""
        )
        entries += [
            f"<li><code>{esc(param)}</code>: not surveyed ({esc(reason)})</li>"
            for param, reason in left_out.get(tool, [])
        ]
        toc.append(
            f'<li><a href="#{attr([anchor])}"><code>{esc(tool)}</code></a><ul>{"".join(entries)}'
            "</ul></li>"
        )
        sections.append(
            f'<section class="tool" id="{attr([anchor])}"><h2><code>{esc(tool)}</code></h2>'
            f"{''.join(params)}{not_surveyed}</section>"
        )
    from fidelity._report.outcomes import family_key

    bar = filters(sorted(families, key=family_key), sorted(kinds), sent_count(sent, listed))
    summary = (
        f"{len(cards)} {noun}{'s' if len(cards) != 1 else ''} surveyed, "
        f"{len(skipped)} not surveyed."
    )
    return document(
        title=f"Parameter transformations: {title}",
        version=version,
        style=STYLE + _EXTRA_STYLE,
        body=f"""<header>
<h1>Parameter transformations: {esc(title)}</h1>
<p class="facts">{esc(summary)}</p>
{bar}
</header>
<main>
<nav class="toc"><h2>Contents</h2><ul>{"".join(toc)}</ul></nav>
{"".join(sections)}
</main>""",
        script=FILTER_SCRIPT,
    )
