"""``fidelity.sweep(server)``: every string parameter of a whole MCP server, in a test.

The fixture's form of :func:`fidelity.sweep` (what ``fidelity probe --all-tools``
runs): the server is a command (a list of words), a Streamable HTTP URL, or an MCP
probe (``probes.mcp(...)``, ``probes.mcp_module("package.server:app")``: its server is
swept, not its one tool). Each card is recorded for the session as the fixture's
surveys record theirs (``--fidelity-cards``, ``--fidelity-check``); the test fails
with a short report when the sweep's exit code is not 0: the rows whose values came
back rewritten beyond the allowed kinds, or why the run broke or measured nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import FidelityError, UsageError
from fidelity._core.render import safe
from fidelity._report.card_render import card_json

if TYPE_CHECKING:
    from fidelity._pytest.session import MarkContext
    from fidelity._pytest.state import PluginState
    from fidelity._report.card import Card
    from fidelity._sweep.result import Sweep

__all__ = ["sweep_server"]

#: Most rows named in a failure; the others are counted.
_ROWS_SHOWN = 20


def server_of(server: object) -> Sequence[str] | str:
    """The command or URL of ``server``: itself, or an MCP probe's target."""
    if isinstance(server, str):
        return server
    if isinstance(server, Sequence) and server and all(isinstance(w, str) for w in server):
        return list(server)
    target = getattr(server, "target", None)
    if target is not None and getattr(server, "cwd", None) is not None:
        raise UsageError(
            "fidelity.sweep() starts the server from the test's working directory; make the "
            "probe without cwd= and change directory first (monkeypatch.chdir)."
        )
    if isinstance(target, str) or (
        isinstance(target, list) and target and all(isinstance(w, str) for w in target)
    ):
        return target
    raise UsageError(
        f"fidelity.sweep() takes an MCP server: its command as a list of words, its URL, "
        f"or an MCP probe (probes.mcp, probes.mcp_module); not {safe(type(server).__name__)}."
    )


def sweep_server(
    state: PluginState,
    context: MarkContext,
    server: object,
    *,
    allowed: tuple[str, ...],
    families: Sequence[str] | None,
    options: Mapping[str, Any],
) -> Sweep:
    """Sweep ``server``, record each card and finding, fail on a non-zero exit code."""
    __tracebackhide__ = True
    from fidelity._sweep.api import sweep

    result = sweep(mcp=server_of(server), allow=allowed, families=families, **options)
    for row in result.rows:
        if row.card is None:
            continue
        state.log.add_card(card_json(row.card), nodeid=context.nodeid)
        state.log.note(
            chain=row.card.name,
            nodeid=context.nodeid,
            source="survey",
            kinds=frozenset(k for r in row.card.rows for k in r.kinds),
            allowed=allowed,
            statuses=_statuses(row.card),
        )
    if result.exit_code:
        raise FidelityError(_report(result))
    return result


def _statuses(card: Card) -> dict[str, int]:
    counts: dict[str, int] = {}
    for observation in card.observations:
        counts[observation.status] = counts.get(observation.status, 0) + 1
    return counts


def _report(result: Sweep) -> str:
    """The failure: the rows beyond the allowed kinds, or why the run ended with 3."""
    rows = result.beyond_allow
    lines = []
    if rows:
        lines.append(
            f"the sweep found rewrites beyond the allowed kinds in {len(rows)} of "
            f"{sum(1 for r in result.rows if r.card is not None)} parameters surveyed:"
        )
        width = max(len(safe(r.name)) for r in rows[:_ROWS_SHOWN])
        lines += [
            f"  {safe(r.name):<{width}}  {', '.join(sorted(r.unexpected))}"
            for r in rows[:_ROWS_SHOWN]
        ]
        if len(rows) > _ROWS_SHOWN:
            lines.append(f"  ... and {len(rows) - _ROWS_SHOWN} more")
        kinds = sorted(set().union(*(r.unexpected for r in rows)))
        listed = ", ".join(f'"{k}"' for k in kinds)
        lines.append(f"if these rewrites are accepted: @pytest.mark.fidelity(allow=[{listed}])")
    if result.message:
        lines.append(f"the sweep ended with exit code {result.exit_code}: {safe(result.message)}")
    elif not rows:
        lines.append(
            f"the sweep ended with exit code {result.exit_code}: an edit did not apply, "
            "without an error flag (the cards say where)"
        )
    return "\n".join(lines)
