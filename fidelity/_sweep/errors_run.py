"""The error contract of one MCP server: the malformed calls made, each answer judged.

:func:`run_errors` lists the server's tools, decides which may be called (the consent
rule of the payload sweep: a tool annotated ``readOnlyHint: true`` without ``--yes``,
any other only with it, and never one the user left out with ``--skip-tool`` or
``--only-tool``), calls ``fidelity-no-such-tool`` once, then each tool with its
malformed calls (:mod:`fidelity._sweep.errors_cases`), and judges every answer
(:mod:`fidelity._sweep.errors_verdict`). A call that crashes the server does not end
the run: the next call starts a new session (three failed starts in a row end it,
and the calls left are listed as not made). A timeout is recorded and the run goes
on with a new session when the old one does not pass its health check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._report.errors import ErrorCall, ErrorContract, ErrorSkip
from fidelity._sweep.errors_cases import ErrorCase, error_cases, unknown_tool_case
from fidelity._sweep.errors_verdict import excerpt, judge
from fidelity._sweep.isolation import left_out

if TYPE_CHECKING:
    from probes import McpTool

__all__ = ["ErrorsPlan", "planned_cases", "run_errors", "run_fleet"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorsPlan:
    """What one error-contract run of an MCP server needs.

    ``target`` is the stdio command (argv) or the Streamable HTTP URL; ``tool`` limits
    the run to one tool; ``probe_options`` are passed to ``probes.mcp`` (headers, the
    sandbox's env and cwd, the client); ``pins`` are ``--args-for`` by tool and
    ``defaults`` the ``--default`` arguments; ``secrets`` are masked in excerpts;
    ``max_requests`` bounds the calls.
    """

    target: Sequence[str] | str
    name: str
    shown: str
    server: str = ""
    tool: str | None = None
    yes: bool = False
    skip_tools: tuple[str, ...] = ()
    only_tools: tuple[str, ...] = ()
    pins: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    timeout: float = 10.0
    max_reply: int | None = None
    probe_options: Mapping[str, Any] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    max_requests: int | None = None


def _pins(plan: ErrorsPlan, tool: McpTool) -> dict[str, Any]:
    props = tool.properties
    shared = {k: v for k, v in plan.defaults.items() if k in props}
    return {**shared, **dict(plan.pins.get(tool.name, {}))}


def _chosen(plan: ErrorsPlan, tools: Sequence[McpTool]) -> tuple[list[McpTool], list[ErrorSkip]]:
    """The tools to call and the ones not called (and why)."""
    from probes.frontend import consent_reason

    names = [t.name for t in tools]
    if plan.tool is not None and plan.tool not in names:
        listed = ", ".join(safe(n) for n in sorted(names)) or "none"
        raise UsageError(
            f"--tool {safe(plan.tool)!r} is not offered by this MCP server; its tools are: "
            f"{listed}."
        )
    chosen, skipped = [], []
    for tool in tools:
        if plan.tool is not None and tool.name != plan.tool:
            continue
        why = left_out(tool.name, plan.skip_tools, plan.only_tools)
        if why:
            skipped.append(ErrorSkip(tool=tool.name, why=f"left out ({why})"))
            continue
        reason = consent_reason(tool)
        if reason and not plan.yes:
            if plan.tool is not None:
                raise UsageError(
                    f"tool {safe(tool.name)!r} may change or delete data ({safe(reason)}): a "
                    "tool is called without --yes only when the server annotates it "
                    "readOnlyHint: true; point the run at disposable data and pass --yes."
                )
            skipped.append(ErrorSkip(tool=tool.name, why=f"needs --yes ({reason})"))
            continue
        chosen.append(tool)
    return chosen, skipped


def _call(probe: Any, case: ErrorCase, secrets: Sequence[str]) -> tuple[ErrorCall | None, str]:
    """Make ``case``'s call: its judged record, or None and why it was not sent."""
    from probes.frontend import RawOutcome, raw_call

    answer = raw_call(probe, case.tool, dict(case.arguments))
    if answer.outcome is RawOutcome.NOT_SENT:
        return None, answer.text
    verdict, why = judge(answer, case)
    label = answer.outcome.value
    if answer.outcome is RawOutcome.RESULT:
        label = "isError" if answer.is_error else "result"
    elif answer.outcome is RawOutcome.RPC_ERROR:
        label = f"rpc-error {answer.code}"
    shown = answer.text if not answer.data else f"{answer.text} {answer.data}"
    call = ErrorCall(
        tool=case.tool,
        case=case.case,
        verdict=verdict,
        answer=label,
        why=why,
        excerpt=excerpt(shown, secrets),
        length=answer.length,
    )
    return call, ""


def _cases(plan: ErrorsPlan, chosen: Sequence[McpTool], names: Sequence[str]) -> list[ErrorCase]:
    cases = [unknown_tool_case(names)]
    for tool in chosen:
        cases += error_cases(tool.name, tool.input_schema, _pins(plan, tool))
    return cases


def _probe(plan: ErrorsPlan) -> Any:
    from fidelity._core.siblings import load

    mcp = load("probes").mcp  # ours, beside a local probes too

    options = dict(plan.probe_options)
    if plan.max_reply is not None:
        options["max_reply"] = plan.max_reply
    target = list(plan.target) if not isinstance(plan.target, str) else plan.target
    return mcp(target, timeout=plan.timeout, **options)


def planned_cases(plan: ErrorsPlan) -> tuple[tuple[ErrorCase, ...], tuple[ErrorSkip, ...]]:
    """The malformed calls ``plan`` would make, and the tools it would not call (the
    server is asked for its tools; no tool is called)."""
    probe = _probe(plan)
    try:
        tools = probe.list_tools()
        chosen, skipped = _chosen(plan, tools)
        return tuple(_cases(plan, chosen, [t.name for t in tools])), tuple(skipped)
    finally:
        with suppress(Exception):
            probe.close()


def run_errors(
    plan: ErrorsPlan, on_call: Callable[[ErrorCall], None] | None = None
) -> ErrorContract:
    """Make ``plan``'s malformed calls and judge each answer; ``on_call`` sees each
    judged call as it is made. A server that cannot be reached is a ``TargetError``; a
    ``--tool`` it does not offer, or that needs ``--yes``, a ``UsageError``."""
    probe = _probe(plan)
    calls: list[ErrorCall] = []
    try:
        tools = probe.list_tools()
        chosen, skipped = _chosen(plan, tools)
        cases = _cases(plan, chosen, [t.name for t in tools])
        gone = ""
        for i, case in enumerate(cases):
            if plan.max_requests is not None and i >= plan.max_requests:
                gone = gone or f"over --max-requests {plan.max_requests}"
            if gone:
                skipped.append(ErrorSkip(tool=case.tool, why=f"{case.case} not called: {gone}"))
                continue
            call, why = _call(probe, case, plan.secrets)
            if call is None:
                gone = f"the MCP session could not be started again ({why})"
                skipped.append(ErrorSkip(tool=case.tool, why=f"{case.case} not called: {gone}"))
                continue
            calls.append(call)
            if on_call is not None:
                on_call(call)
        environment = dict(probe.environment)
    finally:
        with suppress(Exception):
            probe.close()
    return ErrorContract(
        name=plan.name,
        target=plan.shown,
        server=plan.server,
        calls=tuple(calls),
        skipped=tuple(skipped),
        environment=environment,
    )


def run_fleet(
    plans: Sequence[ErrorsPlan], on_done: Callable[[ErrorContract], None] | None = None
) -> tuple[ErrorContract, ...]:
    """:func:`run_errors` for each plan in turn (the servers of ``--config``); a server
    that cannot be reached is a contract with its ``failure``, and the next one is
    checked. ``on_done`` sees each contract as it ends."""
    from fidelity._core.errors import TargetError
    from fidelity._run.messages import one_line

    done = []
    for plan in plans:
        try:
            contract = run_errors(plan)
        except (TargetError, UsageError) as exc:
            contract = ErrorContract(
                name=plan.name, target=plan.shown, server=plan.server, failure=one_line(str(exc))
            )
        done.append(contract)
        if on_done is not None:
            on_done(contract)
    return tuple(done)
