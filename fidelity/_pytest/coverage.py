"""What a session did not check: committed cards it did not produce, allows never used.

A check that passes without checking is worse than none. ``--fidelity-check DIR``
compares the cards the run produced; a committed card that no test produced this time
is listed: as drift ("no longer produced") when the whole suite ran, as a note when
tests were deselected. An ``allow=[...]`` kind that never occurred in its test is named
in the summary, so allow lists do not rot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fidelity._core.render import safe

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    import pytest

    from fidelity._pytest.session import Finding

__all__ = ["Unproduced", "partial_run", "unproduced_cards", "unused_allows"]


@dataclass(frozen=True, slots=True)
class Unproduced:
    """Committed cards not produced: as failures (whole suite) or notes (partial run)."""

    failures: dict[str, list[str]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def partial_run(config: pytest.Config, deselected: int) -> str | None:
    """Why this run is not the whole suite (a sentence), or None when it is.

    Partial: tests deselected (``-k``, ``-m``, or a plugin), or paths on the command
    line narrower than the suite (node ids, files, or directories below the root
    directory and the ``testpaths``).
    """
    opt = config.option
    if getattr(opt, "keyword", ""):
        return f"tests were selected with -k {opt.keyword!r}"
    if getattr(opt, "markexpr", ""):
        return f"tests were selected with -m {opt.markexpr!r}"
    if deselected:
        return f"{deselected} test(s) were deselected"
    from pathlib import Path

    if config.args_source == config.ArgsSource.ARGS:
        root = Path(config.rootpath).resolve()
        suite = [root, *(root / t for t in config.getini("testpaths"))]
        for arg in config.args:
            path = Path(config.invocation_params.dir, arg).resolve()
            whole = "::" not in arg and any(path == s or path in s.parents for s in suite)
            if not whole:
                return f"the run was limited to {safe(arg)!s}"
    return None


def unproduced_cards(directory: Path, produced: set[str], *, partial: str | None) -> Unproduced:
    """The committed cards (``DIR/NAME.json``) whose name is not among ``produced``."""
    if not directory.is_dir():
        return Unproduced()
    missing = sorted(p for p in directory.glob("*.json") if p.stem not in produced)
    if not missing:
        return Unproduced()
    if partial is not None:
        names = ", ".join(safe(p.stem) for p in missing)
        return Unproduced(
            notes=(
                f"not checked: {len(missing)} committed card(s) this run did not produce "
                f"({names}); {partial}: run the whole suite to check them",
            )
        )
    failures = {
        p.stem: [
            f"card {safe(p.stem)!s} is no longer produced: {safe(str(p))!s} is committed but "
            "no test of this run surveyed it; delete it if the chain is gone, or restore "
            "its test"
        ]
        for p in missing
    }
    return Unproduced(failures=failures)


def unused_allows(findings: Iterable[Finding]) -> list[str]:
    """Summary lines naming each test's allowed kinds that never occurred in it."""
    allowed: dict[str, set[str]] = {}
    seen: dict[str, set[str]] = {}
    for finding in findings:
        allowed.setdefault(finding.nodeid, set()).update(finding.allowed)
        seen.setdefault(finding.nodeid, set()).update(finding.kinds)
    lines = []
    for nodeid in sorted(allowed):
        unused = sorted(allowed[nodeid] - seen[nodeid])
        if unused:
            lines.append(
                f"  {safe(nodeid)!s}: {', '.join(unused)} never occurred "
                "(remove it from allow=[...] if the chain no longer does it)"
            )
    if lines:
        lines.insert(0, "allowed kinds that never occurred in their test:")
    return lines
