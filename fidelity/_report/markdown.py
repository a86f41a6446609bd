"""Cards as Markdown: the "parameter transformations" section of a tool's contract card.

Every field is escaped where it lands (``md`` for text, ``code_span`` for ids), so even
a card read from a forged file can add no line, marker or markup to a document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._report.card_records import CardExample, CardFacts, CardRow
from fidelity._report.display import FAILURES, code_span, cut, md

if TYPE_CHECKING:
    from fidelity._report.hints import Hint

__all__ = ["INCOMPLETE", "hint_lines", "is_incomplete", "outcome_text", "render_markdown"]

#: How the facts line marks a card of a run that did not complete.
INCOMPLETE = "**incomplete run** (interrupted)"


def render_markdown(
    name: str,
    rows: Sequence[CardRow],
    facts: CardFacts,
    hints: Sequence[Hint] = (),
    notes: Sequence[str] = (),
) -> str:
    """A Markdown section for a tool's contract card: the table, ``notes`` (sentences
    such as an edit that did not apply), a hint per kind, the facts."""
    lines = [
        f"#### Parameter transformations: {md(name)}",
        "",
        "| family | direction | outcome | kinds | smallest examples |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        kinds = ", ".join(_id(k) for k in row.kinds) or "—"
        examples = "<br>".join(_example_cell(e) for e in row.examples) or "—"
        direction = md(row.direction.replace("_", " "))
        lines.append(
            f"| {md(row.family)} | {direction} | {md(outcome_text(row))} | {kinds} | {examples} |"
        )
    if not rows:
        lines.append("| — | — | no payloads observed | — | — |")
    for note in notes:
        lines += ["", md(note)]
    lines += hint_lines(hints)
    f = facts
    allow = ", ".join(_id(k) for k in f.allow) or "none"
    seed = "none" if f.seed is None else str(f.seed)
    run = "complete run" if f.complete else INCOMPLETE
    lines += [
        "",
        f"Chain: {md(f.chain)}. Surveyed with param-fidelity {md(f.version)} on {md(f.date)}: "
        f"{f.catalogue_size} catalogue payloads, {f.examples} Hypothesis examples, "
        f"seed {seed}; allowed kinds: {allow}; {run}. Examples show code points, "
        "then the text as code with invisible and control characters as [U+XXXX NAME] badges.",
        "",
    ]
    if f.environment is not None and f.environment.items():
        lines += [f.environment.markdown(), ""]
    if f.warnings:
        for warning in f.warnings:
            lines += [f"Warning: {md(warning)}", ""]
    if f.setup is not None:
        lines += _setup_lines(f)
    return "\n".join(lines)


def hint_lines(hints: Sequence[Hint]) -> list[str]:
    """The hints as a Markdown list after the table (nothing when there are none).

    The texts are the project's own (plain ASCII, code in backticks) and are kept as
    they are; where the rewrite happened comes from the observations and is escaped.
    """
    if not hints:
        return []
    lines = ["", "How to fix each rewrite:", ""]
    for hint in hints:
        where = f" ({md(hint.where)})" if hint.where else ""
        lines.append(f"- {_id(hint.kind)}{where}: {hint.text}")
    return lines


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
        found.append("the read-back by calibration calls")
    note = f" (found: {'; '.join(found)})" if found else ""
    return [f"Probed with{note}:", "", f"{fence}sh", command, fence, ""]


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def is_incomplete(block: str) -> bool:
    """Whether a card block (its Markdown) comes from a run that did not complete."""
    return INCOMPLETE in block


def outcome_text(row: CardRow) -> str:
    if row.outcome == "mixed":
        return "mixed: " + ", ".join(f"{n} {s}" for s, n in row.statuses)
    return f"{row.outcome} ({row.count})"


def _id(word: str) -> str:
    """A kind id as code."""
    return code_span(safe(word)) if word else "—"


def _example_cell(example: CardExample) -> str:
    head = md(example.key) if example.key in FAILURES else _id(example.key)
    sent = example.sent.display()
    if example.received is not None:
        return f"{head}: {sent} → {example.received.display()}"
    message = f"{example.error_type}: {example.error}" if example.error_type else example.error
    error = md(cut(message, 80))
    return f"{head}: {sent} ({error})"
