"""The error contract rendered: the card's "Error contract" section (Markdown, and read
back for ``--check``), the HTML page, the JUnit suite and the terminal table.

Every text shown comes from the records of :mod:`fidelity._report.errors`, whose
excerpts are already masked and terminal-safe; names are made safe here too, and the
Markdown table escapes ``|``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from fidelity._core.render import safe
from fidelity._report.errors import ERROR_VERDICTS, ErrorCall, ErrorContract, Verdict, verdict_id
from fidelity._report.junit import JUnitCase, JUnitSuite

__all__ = [
    "SECTION",
    "contract_html",
    "contract_junit",
    "contract_markdown",
    "contract_terminal",
    "verdicts_from_markdown",
]

#: The section's heading in a card.
SECTION = "## Error contract"
_TOOL = "### "
_EXCERPT_CHARS = 120
_ROW = re.compile(r"^\|\s*`(?P<case>[^`]+)`\s*\|\s*(?P<verdict>[a-z]+)\s*\|")


def _cell(text: str) -> str:
    return safe(text).replace("\\", "\\\\").replace("|", "\\|")


def _short(text: str, limit: int = _EXCERPT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _by_tool(calls: Iterable[ErrorCall]) -> dict[str, list[ErrorCall]]:
    tools: dict[str, list[ErrorCall]] = {}
    for call in calls:
        tools.setdefault(call.tool, []).append(call)
    return tools


def _summary(contract: ErrorContract) -> str:
    counts = contract.counts
    said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    total = len(contract.calls)
    return f"{total} malformed call{'' if total == 1 else 's'}: {said or 'none'}"


def contract_markdown(contract: ErrorContract) -> str:
    """The card's "Error contract" section: a summary, then a table per tool (case,
    verdict, the answer's excerpt), then the tools not called and why."""
    lines = [
        SECTION,
        "",
        "How each tool answers malformed calls made from its input schema "
        "(`fidelity probe --errors`). "
        f"{_summary(contract)}.",
        "",
    ]
    if contract.failure:
        lines += [f"Not measured: {_cell(contract.failure)}", ""]
    for tool, calls in _by_tool(contract.calls).items():
        lines += [f"{_TOOL}{_cell(tool)}", "", "| case | verdict | answer |", "|---|---|---|"]
        for call in calls:
            answer = _short(call.excerpt) or f"({call.answer})"
            lines.append(f"| `{_cell(call.case)}` | {call.verdict.value} | {_cell(answer)} |")
        lines.append("")
    if contract.skipped:
        lines += ["Not called:", ""]
        lines += [f"- {_cell(s.tool)}: {_cell(s.why)}" for s in contract.skipped]
        lines.append("")
    return "\n".join(lines)


def verdicts_from_markdown(text: str) -> tuple[tuple[str, str, str], ...] | None:
    """The (tool, case, verdict) rows of the "Error contract" section in ``text``; None
    when it has no such section."""
    if SECTION not in text:
        return None
    rows: list[tuple[str, str, str]] = []
    tool = ""
    for line in text.split(SECTION, 1)[1].splitlines():
        if line.startswith("## "):
            break
        if line.startswith(_TOOL):
            tool = line[len(_TOOL) :].strip().replace("\\|", "|").replace("\\\\", "\\")
            continue
        match = _ROW.match(line)
        if match and tool and match["verdict"] in {v.value for v in Verdict}:
            case = match["case"].replace("\\|", "|").replace("\\\\", "\\")
            rows.append((tool, case, match["verdict"]))
    return tuple(rows)


def contract_terminal(contract: ErrorContract, allow: Sequence[str] = ()) -> str:
    """The contract as a terminal table (a block per tool), with the summary and the
    calls beyond ``--allow``."""
    out = []
    beyond = set(map(id, contract.beyond(allow)))
    for tool, calls in _by_tool(contract.calls).items():
        out.append(f"{safe(tool)}")
        width = max(len(safe(c.case)) for c in calls)
        for call in calls:
            mark = "!" if id(call) in beyond else " "
            excerpt = _short(call.excerpt, 70) or f"({call.answer})"
            out.append(
                f" {mark} {safe(call.case):<{width}}  {call.verdict.value:<10}  {safe(excerpt)}"
            )
    left = [s.tool for s in contract.skipped if s.why.startswith("left out")]
    for skip in contract.skipped:
        if not skip.why.startswith("left out"):
            out.append(f"not called: {safe(skip.tool)}: {safe(skip.why)}")
    if left:
        out.append(f"left out by --skip-tool/--only-tool: {', '.join(safe(t) for t in left)}")
    out.append(f"{_summary(contract)}.")
    failing = contract.beyond(allow)
    if failing:
        ids = sorted({verdict_id(c.verdict) for c in failing})
        out.append(
            f"{len(failing)} call{'s' if len(failing) != 1 else ''} beyond --allow "
            f"({', '.join(ids)}); allow them with --allow ID."
        )
    return "\n".join(out) + "\n"


_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin-bottom:1.5em}"
    "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
    "code{font-size:.95em}.structured{background:#e6f4ea}.unnamed{background:#fff4d6}"
    ".leaky,.accepted,.crashed,.timeout{background:#fde2e1}"
)


def contract_html(contracts: Sequence[ErrorContract], allow: Sequence[str] = ()) -> str:
    """A self-contained HTML page: per target, the summary and a table per tool."""

    def esc(text: str) -> str:
        return html.escape(safe(text))

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Error contract</title>',
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Error contract</h1>",
    ]
    for contract in contracts:
        parts.append(f"<h2>{esc(contract.name)}</h2>")
        parts.append(f"<p>{esc(contract.target)}: {esc(_summary(contract))}.</p>")
        if contract.failure:
            parts.append(f"<p>Not measured: {esc(contract.failure)}</p>")
        beyond = set(map(id, contract.beyond(allow)))
        for tool, calls in _by_tool(contract.calls).items():
            parts.append(f'<h3 class="tool">{esc(tool)}</h3>')
            parts.append("<table><tr><th>case</th><th>verdict</th><th>answer</th></tr>")
            for call in calls:
                flag = " (beyond --allow)" if id(call) in beyond else ""
                parts.append(
                    f'<tr class="{call.verdict.value}"><td><code>{esc(call.case)}</code></td>'
                    f"<td>{call.verdict.value}{flag}</td>"
                    f"<td>{esc(call.excerpt or '(' + call.answer + ')')}</td></tr>"
                )
            parts.append("</table>")
        if contract.skipped:
            parts.append("<p>Not called:</p><ul>")
            parts += [f"<li>{esc(s.tool)}: {esc(s.why)}</li>" for s in contract.skipped]
            parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def contract_junit(contract: ErrorContract, allow: Sequence[str] = ()) -> JUnitSuite:
    """A JUnit suite of the contract: a case per malformed call (``TOOL CASE``); a
    verdict beyond ``--allow`` fails it (``crashed`` and ``timeout`` as errors)."""
    beyond = set(map(id, contract.beyond(allow)))
    cases = []
    for call in contract.calls:
        said = f"{verdict_id(call.verdict)}: {ERROR_VERDICTS.get(verdict_id(call.verdict), '')}"
        detail = f"{call.why}; answer: {call.excerpt or '(' + call.answer + ')'}"
        failed = (said, detail) if id(call) in beyond else None
        errored = call.verdict in (Verdict.CRASHED, Verdict.TIMEOUT)
        cases.append(
            JUnitCase(
                name=f"{call.tool} {call.case}",
                failure=failed if not errored else None,
                error=failed if errored else None,
                output=f"{call.verdict.value}: {call.why}",
                failure_type="fidelity.error-contract",
            )
        )
    if contract.failure:
        cases.append(
            JUnitCase(name="(server)", error=("not measured", contract.failure), output="")
        )
    return JUnitSuite(name=f"{contract.name} {contract.target}", cases=tuple(cases))
