"""``fidelity probe --all-tools``: every free-form string parameter of every tool, in one run.

A loop of the single-tool form, one plan per parameter. The server's tools are
listed; :func:`probes.frontend.inventory` finds every string parameter (nested
ones too, addressed like ``--param``: ``edit_file.edits[0].oldText``) and says which
are left out and why: constrained strings (``enum``, ``format``...), and tools not
annotated ``readOnlyHint: true`` without ``--yes``. Each parameter then runs as
``fidelity probe --tool TOOL --param PATH`` would, in a session of its own: its other
required arguments made from the schema (or pinned with ``--args-for 'TOOL=JSON'``),
the consent check, one calibration call that locates the read-back (a parameter
whose value does not come back is listed as "no read-back" with the tool's answer,
and nothing more is sent to it), then the payloads, within its share of
``--max-requests``, stopped by the same rules (timeouts follow each tool's
annotations), judged by the same verdict. The loop over the parameters, their
outputs and the run's verdict are the rows' (:mod:`~fidelity._sweep.rows`), which
``--openapi`` shares; a write tool read back by a read-only one is
:mod:`~fidelity._sweep.pairing`'s.

The outputs hold one entry per ``tool.param``: a row of the terminal map, a card in
the JSON result (a card collection, with the parameters not surveyed and why), a
block of ``--card``, a section per tool in the ``--html`` page.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import ExitCode, TargetError, UsageError
from fidelity._core.render import safe
from fidelity._run.messages import as_options, one_line
from fidelity._sweep.arguments import plain_arguments
from fidelity._sweep.edits import EditRow, edit_rows, plan_line, survey_edit
from fidelity._sweep.execute import catalogue_payloads, open_target, readable_name, with_seed
from fidelity._sweep.plan import ProbePlan
from fidelity._sweep.rows import Listen, run_param, run_rows
from fidelity._sweep.rows_model import ParamRun, Rows
from fidelity._sweep.templates import literal_braces
from probes.frontend import CALIBRATION_CALLS

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from probes import McpTool
    from probes.frontend import Inventory, ToolParam

__all__ = ["execute_all"]

#: What one parameter costs at least: its calibration calls and one payload.
_LEAST = CALIBRATION_CALLS + 1


# -- planning ---------------------------------------------------------------------


def _arguments(
    param: ToolParam, pinned: Mapping[str, Any] | None, defaults: Mapping[str, Any]
) -> dict[str, Any]:
    """The argument template of ``param``'s tool: the other arguments made from its
    schema (their free-form names unique to each payload of this parameter, so no
    parameter reads what an earlier one stored), the ``--default`` ones its tool has,
    and its ``--args-for`` pins over them."""
    from probes.frontend import other_arguments

    made = _unique(param, literal_braces(other_arguments(param.tool, param.path, plain_arguments)))
    props = param.tool.input_schema.get("properties")
    top = param.path.segments[0] if param.path.segments else None
    shared = {
        k: v for k, v in defaults.items() if isinstance(props, Mapping) and k in props and k != top
    }
    return {**made, **shared, **(pinned or {})}


#: A made name: unique to the run's parameter ({run}) and payload ({n}).
_UNIQUE = "fidelity-{run}-{n}"
_CONSTRAINTS = ("enum", "const", "format", "pattern", "contentEncoding", "contentMediaType")


def _unique(param: ToolParam, made: dict[str, Any]) -> dict[str, Any]:
    """``made`` with each top-level free-form string (a name, a key, a path) replaced by
    one unique to the parameter's run and payload."""
    props = param.tool.input_schema.get("properties")
    if not isinstance(props, Mapping):
        return made
    top = param.path.segments[0] if param.path.segments else None
    out = dict(made)
    for key, value in made.items():
        schema = props.get(key)
        if key == top or not isinstance(value, str) or not isinstance(schema, Mapping):
            continue
        if schema.get("type") != "string" or any(c in schema for c in _CONSTRAINTS):
            continue
        limit = schema.get("maxLength", 64)
        if isinstance(limit, int) and limit >= len("fidelity-00000000-000"):
            out[key] = _UNIQUE
    return out


def _subplan(
    plan: ProbePlan, param: ToolParam, args: dict[str, Any] | None, share: int | None
) -> ProbePlan:
    """The single-tool plan of one parameter (its outputs are the whole run's); a
    prompt's or a resource template's record is probed as ``--prompt``/``--resource``."""
    from probes.frontend import PROMPT, route_of

    route = route_of(param.tool)
    return dataclasses.replace(
        plan,
        prompt=route.target if route is not None and route.kind == PROMPT else None,
        resource=route.target if route is not None and route.kind != PROMPT else None,
        tool=param.tool.name,
        param=str(param.path),
        args=args,
        before=(),
        read=None,
        read_tool=None,
        read_args=None,
        max_requests=share,
        json=None,
        card=None,
        html=None,
        junit=None,
        all_tools=False,
        args_for=(),
    )


# -- one parameter ------------------------------------------------------------------


#: How a calibration that found no echo begins (then a read tool is looked for).
_NO_ECHO = "no read-back: the calibration value did not come back"


def _survey_param(
    plan: ProbePlan,
    param: ToolParam,
    pinned: Mapping[str, Any] | None,
    payloads: Sequence[Payload],
    share: int | None,
    *,
    readers: Sequence[McpTool] = (),
) -> ParamRun:
    """Run one parameter as the single-tool form would; never raises for the
    parameter's own failures (they are its ``ParamRun``). A parameter that does not
    come back is read back with a paired read-only tool among ``readers``, if one
    proves itself (:mod:`fidelity._sweep.pairing`)."""
    try:
        args = _arguments(param, pinned, dict(plan.defaults))
    except UsageError as exc:
        return ParamRun(param=param, skipped=_cannot(exc))
    sub = _subplan(plan, param, args, share)
    run = _survey_sub(sub, param, payloads)
    if not run.skipped.startswith(_NO_ECHO):
        return run
    from fidelity._sweep.pairing import read_paired

    return read_paired(
        run,
        sub,
        param,
        args=args,
        readers=readers,
        share=share,
        survey=lambda paired: _survey_sub(paired, param, payloads),
    )


def _survey_edit(
    plan: ProbePlan,
    row: EditRow,
    pinned: Mapping[str, dict[str, Any]],
    payloads: Sequence[Payload],
    share: int | None,
    *,
    tools: Sequence[McpTool],
    readers: Sequence[McpTool],
) -> ParamRun:
    """An edit-shaped row, with the apply check (:mod:`fidelity._sweep.edits`)."""
    from fidelity._sweep.isolation import left_out

    return survey_edit(
        plan, row, pinned.get(row.tool.name), share,
        tools=[t for t in tools if not left_out(t.name, plan.skip_tools, plan.only_tools)],
        readers=readers, arguments=_arguments, subplan=_subplan,
        survey=lambda sub: _survey_sub(sub, row, payloads),
        skip=lambda why, spent: ParamRun(param=row, skipped=why, requests=spent),
        least=_LEAST,
    )  # fmt: skip


def _survey_sub(sub: ProbePlan, param: ToolParam, payloads: Sequence[Payload]) -> ParamRun:
    """One parameter's run as ``sub`` plans it (open, calibrate, sweep, close)."""
    try:
        manager, probe = open_target(sub)
    except UsageError as exc:
        return ParamRun(param=param, skipped=_cannot(exc))
    except TargetError as exc:
        return ParamRun(param=param, failure=str(exc), fatal=True)
    try:
        return run_param(sub, param, probe, payloads)
    finally:
        with suppress(Exception):  # closing a session that failed: nothing more to learn
            manager.__exit__(None, None, None)


def _cannot(exc: Exception) -> str:
    reason = one_line(as_options(str(exc))).rstrip(".")
    reason = reason.replace("; pass them as --args {...}", "")
    return f"not planned: {reason}; pin its arguments with --args-for 'TOOL=JSON'"


# -- the whole run ------------------------------------------------------------------


def _check_pins(plan: ProbePlan, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    pinned = dict(plan.args_for)
    unknown = [t for t in pinned if t not in names]
    if unknown and plan.config_tools:
        # In a server's run of --config: a pin for another server's tool (the parent
        # judges the pins over the whole file).
        return {t: a for t, a in pinned.items() if t in names}
    if unknown:
        raise UsageError(
            f"--args-for names {', '.join(repr(safe(t)) for t in unknown)}, which this MCP "
            f"server does not offer; its tools are: {', '.join(safe(n) for n in sorted(names))}."
        )
    return pinned


def _left_out(plan: ProbePlan, tools: Sequence[McpTool], inv: Inventory) -> Inventory:
    """The inventory with the parameters the user left out marked so: those of the tools
    ``--skip-tool``/``--only-tool`` leave out (never called), and those ``--default``
    gives; a glob that matches no tool is a usage error (in a server's run of
    ``--config``, the parent's to judge over every server: :func:`_config_tools`)."""
    from fidelity._sweep.isolation import left_out

    names = [t.name for t in tools]
    for option, globs in (("--skip-tool", plan.skip_tools), ("--only-tool", plan.only_tools)):
        for glob in () if plan.config_tools else globs:
            if not any(fnmatch.fnmatchcase(n, glob) for n in names):
                raise UsageError(
                    f"{option} {safe(glob)!r} matches none of this MCP server's tools: "
                    f"{', '.join(safe(n) for n in sorted(names))}."
                )
    params = []
    given = {name for name, _ in plan.defaults}
    for p in inv.params:
        why = left_out(p.tool.name, plan.skip_tools, plan.only_tools)
        top = p.path.segments[0] if p.path.segments else None
        if not why and top in given:
            why = f"given by --default {top}"
        params.append(dataclasses.replace(p, skipped=f"left out ({why})") if why else p)
    without = tuple(
        t for t in inv.without_strings if not left_out(t.name, plan.skip_tools, plan.only_tools)
    )
    return dataclasses.replace(inv, params=tuple(params), without_strings=without)


def _config_tools(plan: ProbePlan, tools: Sequence[McpTool]) -> bool:
    """In a server's run of ``--config``: write the server's tool names where the parent
    reads them, and say so when the file's globs leave out every tool of this server
    (then nothing is surveyed here, by the user's choice: not a failure). True then."""
    from fidelity._sweep.isolation import left_out

    if plan.config_tools is None:
        return False
    names = [t.name for t in tools]
    with open(plan.config_tools, "w", encoding="utf-8") as out:
        json.dump(names, out)
    if not names or not all(left_out(n, plan.skip_tools, plan.only_tools) for n in names):
        return False
    sys.stdout.write(
        f"every tool of this MCP server is left out by --skip-tool/--only-tool "
        f"({', '.join(safe(n) for n in sorted(names))}): nothing to survey here.\n"
    )
    sys.stdout.flush()
    return True


def execute_all(plan: ProbePlan, listen: Listen | None = None) -> int:
    """Run ``fidelity probe --all-tools`` as planned; return the exit code (``listen``:
    who hears the run, see :func:`~fidelity._sweep.rows.run_rows`)."""
    from fidelity._sweep.isolation import left_out
    from fidelity._sweep.listing import _tools_of
    from fidelity._sweep.outputs import check_outputs
    from probes.frontend import inventory

    check_outputs(plan)
    tools = _tools_of(plan, reads=True)
    if _config_tools(plan, tools):
        return ExitCode.OK
    inv = _left_out(plan, tools, inventory(tools, allow_destructive=plan.yes, switch="--yes"))
    inv = edit_rows(inv)
    pinned = _check_pins(plan, [t.name for t in tools])
    # Every card's block name, checked against the document (read once) before the
    # first call.
    check_outputs(
        plan, more=[readable_name(f"{p.tool.name}.{p.path.block_name}") for p in inv.surveyed]
    )
    payloads = catalogue_payloads(plan)
    plan = with_seed(plan)
    surveyed = inv.surveyed
    if plan.max_requests is not None and plan.max_requests < _LEAST * len(surveyed):
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the {_LEAST} calls each of "
            f"the {len(surveyed)} tool parameters needs ({CALIBRATION_CALLS} calibration calls and "
            "one payload); "
            f"raise it to at least {_LEAST * len(surveyed)}."
        )
    if plan.dry_run:
        return _dry_run(plan, inv, payloads, pinned)
    # A tool left out is never called, as a read-back either.
    readers = [
        t for t in tools if t.read_only and not left_out(t.name, plan.skip_tools, plan.only_tools)
    ]

    def survey_one(param: Any, share: int | None) -> ParamRun:
        if isinstance(param, EditRow):
            return _survey_edit(plan, param, pinned, payloads, share, tools=tools, readers=readers)
        pins = pinned.get(param.tool.name)
        return _survey_param(plan, param, pins, payloads, share, readers=readers)

    return run_rows(plan, inv, survey_one, payloads, noun="tool parameter", listen=listen)


# -- looking first ------------------------------------------------------------------


def _dry_run(
    plan: ProbePlan, inv: Rows, payloads: Sequence[Payload], pinned: Mapping[str, Any]
) -> int:
    out = sys.stdout
    transport = "stdio command" if isinstance(plan.target, tuple) else "Streamable HTTP"
    surveyed = inv.surveyed
    out.write("dry run: no tool is called.\n")
    out.write(f"  target: MCP server over {transport}: {safe(plan.shown_target)}\n")
    tools = len({p.tool.name for p in inv.params}) + len(inv.without_strings)
    out.write(
        f"  {tools} tools, {len(inv.params)} string parameters: {len(surveyed)} to survey, "
        f"{len(inv.skipped)} not surveyed\n"
    )
    width = max((len(safe(p.name)) for p in inv.params), default=10)
    if surveyed:
        out.write("  to survey (three calibration calls each, then the payloads):\n")
        for p in surveyed:
            pins = pinned.get(p.tool.name)
            how = (
                f"pinned {safe(json.dumps(pins, ensure_ascii=True))}, the rest from its schema"
                if pins is not None
                else "other arguments from its schema"
            )
            if isinstance(p, EditRow):
                how = plan_line(p, inv.params)
            out.write(f"    {safe(p.name):<{width}}  {how}\n")
    if inv.skipped:
        out.write("  not surveyed:\n")
        for p in inv.skipped:
            out.write(f"    {safe(p.name):<{width}}  {safe(p.skipped)}\n")
    if inv.without_strings:
        names = ", ".join(safe(t.name) for t in inv.without_strings)
        out.write(f"  tools without a string parameter (not called): {names}\n")
    each = f"  {len(payloads)} payloads per parameter"
    if plan.examples:
        each += f", plus {plan.examples} generated examples (seed {plan.seed})"
    if plan.max_requests is not None and surveyed:
        each += (
            f" (--max-requests {plan.max_requests} for the whole run: about "
            f"{plan.max_requests // len(surveyed)} calls each, the calibration call included)"
        )
    out.write(each + "\n")
    out.flush()
    return ExitCode.OK
