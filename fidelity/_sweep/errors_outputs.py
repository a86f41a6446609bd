"""What an error-contract run leaves behind, and its exit code.

The outputs of ``fidelity probe --errors`` (one server, or every server of
``--config``): the JSON result (:func:`contract_json`), the card block holding the
"Error contract" section (one block per server: ``errors``, or ``--name``, or
``SERVER.errors``), the HTML page, the JUnit suites; ``--check`` compares each
contract with the section of its block (:func:`check_contracts`). :func:`exit_code`
says 3 when a server could not be reached or no tool of it could be called, 1 when
a verdict other than ``structured`` is beyond ``--allow``, else 0.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from fidelity._core.errors import ExitCode, UsageError
from fidelity._core.render import safe
from fidelity._report.errors import ErrorContract, contract_drift

__all__ = [
    "ErrorOutputs",
    "check_contracts",
    "check_outputs",
    "contract_json",
    "exit_code",
    "write_outputs",
]

#: The version of the JSON result's shape.
_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorOutputs:
    """Where the results go (``None``: not written); ``json`` may be ``-`` (stdout)."""

    json: str | None = None
    card: str | None = None
    check: str | None = None
    html: str | None = None
    junit: str | None = None


def check_outputs(outputs: ErrorOutputs) -> None:
    """Refuse, before any call, an output that cannot be written or a ``--check``
    document that cannot be read (a ``UsageError``)."""
    from fidelity._report.document import read
    from fidelity._report.results import writable

    for option, path in (
        ("--json", outputs.json),
        ("--card", outputs.card),
        ("--html", outputs.html),
        ("--junit", outputs.junit),
    ):
        if path is not None and path != "-":
            writable(path, option)
    if outputs.check is not None:
        read(outputs.check, "--check")


def exit_code(contracts: Sequence[ErrorContract], allow: Sequence[str]) -> ExitCode:
    """3 when a server failed or had no tool called, 1 when a verdict is beyond
    ``allow``, else 0."""
    if not contracts:
        return ExitCode.TARGET
    return ExitCode(max(c.exit_code(allow) for c in contracts))


def contract_json(
    contracts: Sequence[ErrorContract], allow: Sequence[str], code: int
) -> dict[str, object]:
    """The JSON result: the contracts, and every call with its server's name."""
    calls = [
        {"server": c.server, **call.to_dict()} if c.server else call.to_dict()
        for c in contracts
        for call in c.calls
    ]
    totals: dict[str, int] = {}
    for contract in contracts:
        for verdict, n in contract.counts.items():
            totals[verdict] = totals.get(verdict, 0) + n
    return {
        "kind": "error-contract",
        "version": _VERSION,
        "exit_code": code,
        "allow": list(allow),
        "counts": totals,
        "calls": calls,
        "contracts": [c.to_dict(allow) for c in contracts],
    }


def write_outputs(
    contracts: Sequence[ErrorContract], outputs: ErrorOutputs, allow: Sequence[str], code: int
) -> str:
    """Write every output asked for; return the JSON text when ``json`` is ``-`` (for
    the caller to print), else ``""``."""
    from fidelity._report import document
    from fidelity._report.errors_render import contract_html, contract_junit, contract_markdown
    from fidelity._report.junit import render_junit
    from fidelity._report.results import write_atomic

    text = json.dumps(contract_json(contracts, allow, code), indent=2, ensure_ascii=False) + "\n"
    if outputs.json is not None and outputs.json != "-":
        write_atomic(outputs.json, text, "--json")
    if outputs.card is not None:
        sections = [(c.name, contract_markdown(c)) for c in contracts]

        def edit(doc: bytes) -> bytes:
            for name, content in sections:
                doc = document.replace(doc, name, content)
            return doc

        document.update(outputs.card, edit, "--card")
    if outputs.html is not None:
        document.write(outputs.html, contract_html(contracts, allow), "--html")
    if outputs.junit is not None:
        suites = [contract_junit(c, allow) for c in contracts]
        document.write(outputs.junit, render_junit(suites, name="fidelity errors"), "--junit")
    return text if outputs.json == "-" else ""


def check_contracts(path: str, contracts: Sequence[ErrorContract], out: TextIO) -> int:
    """Compare each contract with the "Error contract" section of its block in the
    document at ``path``: print a line per block and each change; 1 when a block is
    missing, holds no such section or drifted, else 0."""
    from fidelity._report import document
    from fidelity._report.errors_render import verdicts_from_markdown

    data = document.read(path, "--check")
    failed = False
    for contract in contracts:
        where = f"{safe(path)}, block {safe(contract.name)}"
        block = document.find(data, contract.name, what="--check")
        committed = verdicts_from_markdown(block.content) if block is not None else None
        if committed is None:
            missing = "no such block" if block is None else "no error contract in the block"
            print(f"{where}: {missing}; write it with --card {safe(path)}.", file=out)
            failed = True
            continue
        run = [(c.tool, c.case, c.verdict.value) for c in contract.calls]
        changes = contract_drift(run, committed)
        if not changes:
            print(f"{where}: matches.", file=out)
            continue
        failed = True
        print(f"{where}: {len(changes)} changed call{'s' if len(changes) != 1 else ''}:", file=out)
        for line in changes:
            print(f"  {safe(line)}", file=out)
    return 1 if failed else 0


def refuse_block_name(name: str) -> None:
    """A card block name that cannot be used in a marker is a ``UsageError``."""
    from fidelity._report.block import find_block

    try:
        find_block(b"", name)
    except UsageError as exc:
        raise UsageError(f"--name: {exc}") from None
