"""Cards as Markdown: the "parameter transformations" section of a tool's contract card."""

from __future__ import annotations

from collections.abc import Sequence

from fidelity._core.render import safe
from fidelity._report.card_records import CardExample, CardFacts, CardRow
from fidelity._report.display import FAILURES, cut, md

__all__ = ["outcome_text", "render_markdown"]


def render_markdown(name: str, rows: Sequence[CardRow], facts: CardFacts) -> str:
    """A Markdown section for a tool's contract card: the table and the facts."""
    lines = [
        f"#### Parameter transformations: {md(name)}",
        "",
        "| family | direction | outcome | kinds | smallest examples |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        kinds = ", ".join(f"`{k}`" for k in row.kinds) or "—"
        examples = "<br>".join(_example_cell(e) for e in row.examples) or "—"
        direction = row.direction.replace("_", " ")
        lines.append(
            f"| {md(row.family)} | {direction} | {outcome_text(row)} | {kinds} | {examples} |"
        )
    if not rows:
        lines.append("| — | — | no payloads observed | — | — |")
    f = facts
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
    if f.warnings:
        for warning in f.warnings:
            lines += [f"Warning: {md(warning)}", ""]
    if f.setup is not None:
        lines += _setup_lines(f)
    return "\n".join(lines)


def _setup_lines(facts: CardFacts) -> list[str]:
    """The command that repeats the run, and what was found rather than given."""
    setup = facts.setup
    assert setup is not None
    command = safe(setup.command_line())
    fence = "`" * max(3, _longest_backticks(command) + 1)
    found = []
    if setup.param_found:
        found.append(f"the payload's argument ({md(setup.param)}) from the tool's schema")
    if setup.read_found:
        found.append("the read-back by a calibration call")
    note = f" (found: {'; '.join(found)})" if found else ""
    return [f"Probed with{note}:", "", f"{fence}sh", command, fence, ""]


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


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
