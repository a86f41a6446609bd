"""The tools an MCP server lists (its prompts and resource templates after them, when
asked): what ``--all-tools`` surveys and ``--list-tools`` shows (the CLI prints them)."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from fidelity._core.errors import TargetError, UsageError
from fidelity._run.messages import as_options, one_line
from fidelity._sweep.plan import ProbePlan

__all__ = ["tools_cut_warning", "tools_of"]


def tools_of(
    plan: ProbePlan, *, reads: bool = False, cut: list[int] | None = None
) -> tuple[Any, ...]:
    """The server's tools; with ``reads``, its prompts and resource templates after them
    (as ``prompt:NAME`` and ``resource:TEMPLATE`` records). ``cut`` gets how many tools
    the server listed past the cap (see ``McpProbe.tools_cut``)."""
    from fidelity._core.siblings import load
    from fidelity._sweep.isolation import spawn_options
    from fidelity._sweep.request_options import mcp_headers

    mcp = load("probes").mcp  # ours, beside a local probes too

    target: list[str] | str = list(plan.target) if isinstance(plan.target, tuple) else plan.target
    try:
        client = plan.clients[0] if plan.clients else None
        probe = mcp(
            target,
            tool=plan.tool,
            timeout=plan.timeout,
            max_reply=plan.max_reply,
            client=client,
            headers=mcp_headers(plan),
            transport=plan.transport,
            **spawn_options(plan.sandbox, plan.env),
        )
    except UsageError as exc:
        raise UsageError(one_line(as_options(str(exc)))) from None
    try:
        tools: tuple[Any, ...] = probe.list_tools()
        if cut is not None:
            cut.append(probe.tools_cut)
        return (*tools, *probe.list_reads()) if reads else tools
    except UsageError as exc:
        raise UsageError(one_line(as_options(str(exc)))) from None
    except TargetError as exc:
        raise TargetError(one_line(str(exc))) from None
    finally:
        with suppress(Exception):
            probe.close()


def tools_cut_warning(listed: int) -> str:
    """The warning for a server that lists more tools than a run reads."""
    from probes.frontend import MAX_TOOLS

    return (
        f"the server lists {listed if listed > MAX_TOOLS + 1 else 'more than ' + str(MAX_TOOLS)} "
        f"tools, more than the {MAX_TOOLS} a run reads: only the first {MAX_TOOLS} were read."
    )
