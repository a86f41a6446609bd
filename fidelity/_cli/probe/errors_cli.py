"""``fidelity probe --errors``: the options of an error-contract run, checked, and its
table printed. The run and its outputs are :mod:`fidelity._sweep`'s."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from fidelity._cli.probe.plan import ProbePlan
    from fidelity._sweep.errors_outputs import ErrorOutputs
    from fidelity._sweep.errors_run import ErrorsPlan

__all__ = ["errors_allow", "errors_plan", "run_errors_cli"]

#: Options that describe a payload's run, which an error-contract run does not make.
_PAYLOAD_OPTIONS = (
    "param", "args", "before", "send", "read", "read_tool", "read_args", "expect",
    "read_url", "id_from", "clients", "prompt", "resource", "examples", "families",
    "body", "method", "read_method", "concurrency", "seed",
)  # fmt: skip


def errors_allow(values: list[str] | None) -> tuple[str, ...]:
    """The verdict ids of ``--allow`` (``error.accepted``...), checked."""
    from fidelity._report.errors import ERROR_VERDICTS

    given = tuple(dict.fromkeys(k for v in values or () for k in re.split(r"[,\s]+", v) if k))
    unknown = [k for k in given if k not in ERROR_VERDICTS]
    if unknown:
        raise UsageError(
            f"--allow {safe(unknown[0])!r} is not a verdict of the error contract; with "
            f"--errors, --allow takes {', '.join(ERROR_VERDICTS)}."
        )
    return given


def _refuse(args: argparse.Namespace) -> None:
    given = [o for o in _PAYLOAD_OPTIONS if getattr(args, o, None) not in (None, False, [])]
    if given:
        shown = ", ".join(f"--{o.replace('_', '-')}" for o in given)
        raise UsageError(
            f"{shown} describe{'s' if len(given) == 1 else ''} a payload's run; --errors makes "
            "its own malformed calls from each tool's schema (pin a tool's valid arguments "
            "with --args-for 'TOOL=JSON')."
        )
    if args.list_tools or args.dry_run:
        raise UsageError("--errors calls the tools; drop --list-tools and --dry-run.")
    if args.tool is not None and args.all_tools:
        raise UsageError("--tool checks one tool and --all-tools every tool; give one of them.")


def errors_plan(args: argparse.Namespace) -> tuple[ProbePlan, ErrorsPlan, ErrorOutputs]:
    """The probe plan (options checked as ``fidelity probe`` checks them), the error
    run's plan and its outputs."""
    from fidelity._cli.probe.isolation import spawn_options
    from fidelity._cli.probe.plan import plan_from_args
    from fidelity._cli.probe.request_options import mcp_headers
    from fidelity._sweep.errors_outputs import ErrorOutputs, check_outputs, refuse_block_name
    from fidelity._sweep.errors_run import ErrorsPlan

    _refuse(args)
    checked = argparse.Namespace(**vars(args))
    checked.allow, checked.check = None, None
    checked.all_tools = args.tool is None
    plan = plan_from_args(checked)
    if not plan.is_mcp:
        raise UsageError(
            "--errors calls an MCP server's tools (add --mcp, or an mcp+http(s):// URL); for "
            "an HTTP API give its --openapi document."
        )
    name = plan.given_name or "errors"
    refuse_block_name(name)
    outputs = ErrorOutputs(
        json=plan.json, card=plan.card, check=args.check, html=plan.html, junit=plan.junit
    )
    check_outputs(outputs)
    secrets = tuple(v for _, v in plan.headers) + ((plan.auth[1],) if plan.auth else ())
    options = {"headers": mcp_headers(plan), **spawn_options(plan.sandbox)}
    run = ErrorsPlan(
        target=plan.target,
        name=name,
        shown=plan.shown_target,
        tool=args.tool,
        yes=plan.yes,
        skip_tools=plan.skip_tools,
        only_tools=plan.only_tools,
        pins=dict(plan.args_for),
        defaults=dict(plan.defaults),
        timeout=plan.timeout,
        max_reply=plan.max_reply,
        probe_options=options,
        secrets=secrets,
        max_requests=plan.max_requests,
    )
    return plan, run, outputs


def run_errors_cli(args: argparse.Namespace) -> int:
    """Run ``fidelity probe --errors`` against one MCP server; return the exit code."""
    from fidelity._cli.probe.isolation import sandboxed
    from fidelity._core.errors import ExitCode, TargetError
    from fidelity._report.errors import ErrorContract
    from fidelity._report.errors_render import contract_terminal
    from fidelity._sweep.errors_outputs import check_contracts, exit_code, write_outputs
    from fidelity._sweep.errors_run import run_errors

    allow = errors_allow(args.allow)
    plan, run, outputs = errors_plan(args)
    with sandboxed(plan.sandbox):
        try:
            contract = run_errors(run)
        except TargetError as exc:
            contract = ErrorContract(name=run.name, target=run.shown, failure=str(exc))
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
