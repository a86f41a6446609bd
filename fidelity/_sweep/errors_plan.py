"""The options of ``fidelity probe --errors``, checked before any call: the verdict ids
of ``--allow``, the payload options it refuses, the run's plan (one target with
``--tool`` or every tool) and its outputs, and one plan per server of ``--config``.
The options are checked as ``fidelity probe`` checks them (:mod:`fidelity._sweep.plan`)."""

from __future__ import annotations

import argparse
import os
import re

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._sweep.errors_outputs import ErrorOutputs
from fidelity._sweep.errors_run import ErrorsPlan
from fidelity._sweep.plan import ProbePlan

__all__ = ["errors_allow", "errors_plan", "fleet_outputs", "fleet_plans"]

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
    if args.list_tools:
        raise UsageError("--errors calls the tools; drop --list-tools (--dry-run shows the calls).")
    if args.tool is not None and args.all_tools:
        raise UsageError("--tool checks one tool and --all-tools every tool; give one of them.")


def errors_plan(args: argparse.Namespace) -> tuple[ProbePlan, ErrorsPlan, ErrorOutputs]:
    """The probe plan (options checked as ``fidelity probe`` checks them), the error
    run's plan and its outputs (checked writable)."""
    from fidelity._sweep.errors_outputs import check_outputs, refuse_block_name
    from fidelity._sweep.isolation import spawn_options
    from fidelity._sweep.plan import plan_from_args
    from fidelity._sweep.request_options import mcp_headers

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
    options = {"headers": mcp_headers(plan), **spawn_options(plan.sandbox, plan.env)}
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


def fleet_outputs(args: argparse.Namespace) -> ErrorOutputs:
    """The outputs of ``--errors --config`` (checked writable), after the options that
    do not apply to it are refused."""
    from fidelity._sweep.errors_outputs import check_outputs

    _refuse(args)
    one = [o for o in ("target", "tool", "sandbox") if getattr(args, o, None)]
    if one or args.jobs is not None or args.json == "-":
        shown = "--json -" if args.json == "-" else ("--jobs" if not one else f"--{one[0]}")
        shown = "a target" if shown == "--target" else shown
        raise UsageError(
            f"--errors --config checks every server of the file in turn, each as its own "
            f"block; {shown} does not apply to it: drop it (or check one server on its own)."
        )
    outputs = ErrorOutputs(
        json=args.json, card=args.card, check=args.check, html=args.html, junit=args.junit
    )
    check_outputs(outputs)
    return outputs


def fleet_plans(args: argparse.Namespace) -> list[ErrorsPlan]:
    """One error run's plan per server of ``--config`` (``--server`` chooses them)."""
    from fidelity._sweep.config import HEADER_VARIABLE, read_config
    from fidelity._sweep.isolation import check_control
    from fidelity._sweep.plan import DEFAULT_TIMEOUT, parse_bytes, parse_count, parse_seconds
    from fidelity._sweep.templates import check_all_tools
    from probes.frontend import DEFAULT_MAX_REPLY

    checked = argparse.Namespace(**vars(args))
    checked.all_tools = True
    control = check_control(checked, "mcp-stdio")
    pins = dict(check_all_tools(checked, "mcp-stdio"))
    timeout = parse_seconds("--timeout", args.timeout, default=DEFAULT_TIMEOUT)
    max_reply = parse_bytes("--max-reply", args.max_reply, default=DEFAULT_MAX_REPLY)
    most = parse_count("--max-requests", args.max_requests, default=None, minimum=1)
    plans = []
    for server in read_config(args.config, args.server or ()):
        if server.url is not None:
            target: str | tuple[str, ...] = server.url
            options: dict[str, object] = {"headers": dict(server.headers) or None}
        else:
            env = {**os.environ, **server.env}
            for key in [k for k in env if k.startswith(HEADER_VARIABLE)]:
                del env[key]
            target, options = server.command, {"env": env, "cwd": server.cwd}
        plans.append(
            ErrorsPlan(
                target=target,
                name=f"{server.name}.errors",
                shown=server.name,
                server=server.name,
                yes=bool(args.yes),
                skip_tools=control.skip_tools,
                only_tools=control.only_tools,
                pins=pins,
                defaults=dict(control.defaults),
                timeout=timeout,
                max_reply=max_reply,
                probe_options=options,
                secrets=server.secrets,
                max_requests=most,
            )
        )
    return plans
