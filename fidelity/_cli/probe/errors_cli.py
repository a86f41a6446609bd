"""``fidelity probe --errors``: an error-contract run, its table printed. The options,
the run and its outputs are :mod:`fidelity._sweep`'s (``errors_*``)."""

from __future__ import annotations

import argparse
import sys

from fidelity._core.errors import ExitCode, TargetError
from fidelity._core.render import safe
from fidelity._report.errors import ErrorContract
from fidelity._run.messages import one_line
from fidelity._sweep.errors_run import ErrorsPlan

__all__ = ["run_errors_cli", "run_errors_config"]


def run_errors_cli(args: argparse.Namespace) -> int:
    """Run ``fidelity probe --errors`` against one MCP server; return the exit code."""
    from fidelity._report.errors_render import contract_terminal
    from fidelity._sweep.errors_outputs import check_contracts, exit_code, write_outputs
    from fidelity._sweep.errors_plan import errors_allow, errors_plan
    from fidelity._sweep.errors_run import run_errors
    from fidelity._sweep.isolation import sandboxed

    allow = errors_allow(args.allow)
    plan, run, outputs = errors_plan(args)
    if plan.dry_run:
        with sandboxed(plan.sandbox):
            return _dry_run(run)
    with sandboxed(plan.sandbox):
        try:
            contract = run_errors(run)
        except TargetError as exc:
            contract = ErrorContract(name=run.name, target=run.shown, failure=one_line(str(exc)))
    contracts = [contract]
    code = exit_code(contracts, allow)
    if outputs.check is not None and code != ExitCode.TARGET:
        code = ExitCode(check_contracts(outputs.check, contracts, sys.stdout))
    printed = write_outputs(contracts, outputs, allow, code)
    if printed:
        sys.stdout.write(printed)
    elif not plan.quiet:
        sys.stdout.write(contract_terminal(contract, allow))
    if contract.failure:
        sys.stderr.write(f"fidelity probe: {safe(contract.failure)}\n")
    elif not contract.measured:
        sys.stderr.write(
            "fidelity probe: no tool of this MCP server was called (see 'not called'); "
            "pass --yes to call tools not annotated readOnlyHint: true.\n"
        )
    sys.stdout.flush()
    return code


def _dry_run(run: ErrorsPlan) -> int:
    """Print the malformed calls the run would make; call no tool."""
    import json

    from fidelity._sweep.errors_run import planned_cases

    cases, skipped = planned_cases(run)
    out = sys.stdout
    out.write("dry run: no tool is called (the server was asked for its tools).\n")
    width = max((len(safe(c.case)) for c in cases), default=0)
    tool = None
    for case in cases:
        if case.tool != tool:
            tool = case.tool
            out.write(f"{safe(tool)}\n")
        shown = safe(json.dumps(dict(case.arguments), ensure_ascii=True))
        out.write(f"   {safe(case.case):<{width}}  {shown[:100]}\n")
    left = [s.tool for s in skipped if s.why.startswith("left out")]
    for skip in skipped:
        if not skip.why.startswith("left out"):
            out.write(f"not called: {safe(skip.tool)}: {safe(skip.why)}\n")
    if left:
        out.write(f"left out by --skip-tool/--only-tool: {', '.join(safe(t) for t in left)}\n")
    out.write(f"{len(cases)} malformed call{'s' if len(cases) != 1 else ''}.\n")
    out.flush()
    return ExitCode.OK


def _shown(contract: ErrorContract, allow: tuple[str, ...]) -> None:
    from fidelity._report.errors_render import contract_terminal

    sys.stdout.write(f"== {safe(contract.server)}\n")
    if contract.failure:
        sys.stdout.write(f"not checked: {safe(contract.failure)}\n")
    else:
        sys.stdout.write(contract_terminal(contract, allow))
    sys.stdout.flush()


def run_errors_config(args: argparse.Namespace) -> int:
    """Run ``fidelity probe --errors --config FILE``: each server in turn; return the
    exit code (3 when a server could not be reached or had no tool called)."""
    from fidelity._sweep.errors_outputs import check_contracts, exit_code, write_outputs
    from fidelity._sweep.errors_plan import errors_allow, fleet_outputs, fleet_plans
    from fidelity._sweep.errors_run import run_fleet

    allow = errors_allow(args.allow)
    outputs = fleet_outputs(args)
    plans = fleet_plans(args)
    contracts = run_fleet(plans, None if args.quiet else lambda c: _shown(c, allow))
    code = exit_code(contracts, allow)
    if outputs.check is not None and code != ExitCode.TARGET:
        code = ExitCode(check_contracts(outputs.check, contracts, sys.stdout))
    write_outputs(contracts, outputs, allow, code)
    for contract in contracts:
        if contract.failure or not contract.measured:
            why = contract.failure or "none of its tools could be called"
            sys.stderr.write(f"fidelity probe: server {safe(contract.server)}: {safe(why)}\n")
    return code


def run_errors_http(args: argparse.Namespace, options: object, allow: tuple[str, ...]) -> int:
    """Run ``fidelity probe --openapi SPEC --errors``; return the exit code."""
    from fidelity._report.errors_render import contract_terminal
    from fidelity._sweep.errors_http import openapi_errors
    from fidelity._sweep.errors_outputs import (
        ErrorOutputs,
        check_contracts,
        check_outputs,
        exit_code,
        refuse_block_name,
        write_outputs,
    )
    from fidelity._sweep.plan import plan_from_args

    check = args.check
    args.check = None
    plan = plan_from_args(args)
    name = plan.given_name or "errors"
    refuse_block_name(name)
    outputs = ErrorOutputs(
        json=plan.json, card=plan.card, check=check, html=plan.html, junit=plan.junit
    )
    check_outputs(outputs)
    contract = openapi_errors(plan, options, name=name)
    contracts = [contract]
    code = exit_code(contracts, allow)
    if outputs.check is not None and code != ExitCode.TARGET:
        code = ExitCode(check_contracts(outputs.check, contracts, sys.stdout))
    printed = write_outputs(contracts, outputs, allow, code)
    if printed:
        sys.stdout.write(printed)
    elif not plan.quiet:
        sys.stdout.write(contract_terminal(contract, allow))
    if not contract.measured:
        sys.stderr.write(
            "fidelity probe: no operation of this API was called (see 'not called'); pass "
            "--yes to call operations other than GET, HEAD and OPTIONS.\n"
        )
    sys.stdout.flush()
    return code
