"""Cards as Markdown: the section of a tool's contract card, and the safe display of
values (code points, then the text as a code span with [U+XXXX NAME] badges).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fidelity._core.render import codepoints, safe

if TYPE_CHECKING:
    from fidelity._report.card import Card, CardExample, CardRow

__all__ = ["FAILURES", "cut", "md", "outcome_text", "render_markdown", "shown"]

FAILURES = frozenset({"rejected", "lost", "timeout", "broken"})


def render_markdown(card: Card) -> str:
    """A Markdown section for a tool's contract card: the table and the facts."""
    lines = [
        f"#### Parameter transformations: {md(card.name)}",
        "",
        "| family | direction | outcome | kinds | smallest examples |",
        "|---|---|---|---|---|",
    ]
    for row in card.rows:
        kinds = ", ".join(f"`{k}`" for k in row.kinds) or "—"
        examples = "<br>".join(_example_cell(e) for e in row.examples) or "—"
        direction = row.direction.replace("_", " ")
        lines.append(
            f"| {md(row.family)} | {direction} | {outcome_text(row)} | {kinds} | {examples} |"
        )
    if not card.rows:
        lines.append("| — | — | no payloads observed | — | — |")
    f = card.facts
    allow = ", ".join(f"`{k}`" for k in f.allow) or "none"
    seed = "none" if f.seed is None else str(f.seed)
    run = "complete run" if f.complete else "**incomplete run** (interrupted)"
    lines += [
        "",
        f"Chain: {md(f.chain)}. Surveyed with param-fidelity {md(f.version)} on {f.date}: "
        f"{f.catalogue_size} catalogue payloads, {f.examples} Hypothesis examples, "
        f"seed {seed}; allowed kinds: {allow}; {run}. Examples show code points, "
        "then the text as code with invisible and control characters as [U+XXXX NAME] badges.",
        "",
    ]
    return "\n".join(lines)


def outcome_text(row: CardRow) -> str:
    if row.outcome == "mixed":
        return "mixed: " + ", ".join(f"{n} {s}" for s, n in row.statuses)
    return f"{row.outcome} ({row.count})"


def _example_cell(example: CardExample) -> str:
    head = example.key if example.key in FAILURES else f"`{example.key}`"
    sent = example.sent.display()
    if example.received is not None:
        return f"{head}: {sent} → {example.received.display()}"
    message = f"{example.error_type}: {example.error}" if example.error_type else example.error
    error = md(cut(message, 80))
    return f"{head}: {sent} ({error})"


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(text: str, limit: int, *, markdown: bool = True) -> str:
    """Code points, then the safe text as a code span, both abbreviated for long values.

    A code span, not quotation marks: typographic or ASCII quotes around the text
    would be mistaken for part of it (the quotes family is about exactly those).
    """
    if len(text) <= limit:
        cps, shown = codepoints(text) or "(empty)", text
    else:
        cps = f"{codepoints(text[:12])} … {codepoints(text[-4:])} ({len(text)} code points)"
        shown = text[: limit - 8] + "…" + text[-4:]
    if not shown:
        return cps
    return f"{cps} {_code_span(safe(shown)) if markdown else '`' + safe(shown) + '`'}"


def _code_span(text: str) -> str:
    """``text`` as a Markdown code span that shows it literally, inside a table cell too."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both ends have one: pad so that
    # a leading or trailing space or backtick of the text survives.
    pad = " " if (text[0] in " `" or text[-1] in " `") and text.strip(" ") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


_MD_SPECIAL = set("\\`*_[]<>|&#~")


def md(text: str) -> str:
    """Terminal-safe text with Markdown and table syntax escaped."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in safe(text))
