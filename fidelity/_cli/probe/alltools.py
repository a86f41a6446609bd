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
annotations), judged by the same verdict.

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fidelity._cli.probe.arguments import plain_arguments
from fidelity._cli.probe.execute import (
    card_name,
    catalogue_payloads,
    open_target,
    readable_name,
    run_card,
    run_warnings,
    survey_of,
    with_seed,
)
from fidelity._cli.probe.plan import ProbePlan
from fidelity._cli.probe.templates import literal_braces
from fidelity._core.errors import ExitCode, TargetError, UsageError
from fidelity._core.kinds import FAMILIES, Status
from fidelity._core.render import safe
from fidelity._run.breaker import stop_note
from fidelity._run.budget import calls_per_payload, within_budget
from fidelity._run.messages import as_options, one_line
from fidelity._run.pacing import calibration_pace
from fidelity._run.sweep import sweep
from fidelity._run.verdict import Verdict, broke, judge, measured_counts, unmeasured
from probes.frontend import CALIBRATION_CALLS

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.contract import Probe
    from fidelity._probe.observation import Observation
    from fidelity._report.card import Card
    from fidelity._report.outcomes import FamilyOutcome
    from probes import McpTool
    from probes.frontend import Inventory, ToolParam

__all__ = ["ParamRun", "Row", "Rows", "execute_all", "report_runs", "run_param", "write_progress"]

#: What one parameter costs at least: its calibration calls and one payload.
_LEAST = CALIBRATION_CALLS + 1


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class Row(Protocol):
    """One row of a survey: a tool parameter, or a field of an HTTP operation."""

    @property
    def name(self) -> str: ...
    @property
    def tool(self) -> _Named: ...
    @property
    def path(self) -> object: ...
    @property
    def skipped(self) -> str: ...


class Rows(Protocol):
    """The rows found: surveyed or skipped, and the tools (operations) without one."""

    @property
    def params(self) -> Sequence[Row]: ...
    @property
    def surveyed(self) -> Sequence[Row]: ...
    @property
    def skipped(self) -> Sequence[Row]: ...
    @property
    def without_strings(self) -> Sequence[_Named]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamRun:
    """How one tool parameter's run ended.

    ``card`` and ``outcomes`` when it was surveyed; ``skipped`` says why it was not
    (no read-back, arguments that could not be made); ``failure`` is the sentence of a
    run that broke (stopped, a protocol failure: exit 3); ``nothing`` that of one that
    measured nothing (every payload rejected or lost: a warning, since tools of one
    server often refuse what another left behind); ``fatal`` when the server itself
    could not be reached, which ends the whole run.
    """

    param: Row
    card: Card | None = None
    outcomes: tuple[FamilyOutcome, ...] = ()
    observations: tuple[Observation, ...] = ()
    unexpected: frozenset[str] = frozenset()
    skipped: str = ""
    failure: str = ""
    nothing: str = ""
    note: str = ""
    paired: str = ""
    planned: int = 0
    requests: int = 0
    fatal: bool = False


class _Interrupted(Exception):
    """A parameter's run was interrupted (``signal``: Ctrl-C, or the signal that ended
    the command, raised again once what it saw is kept)."""

    def __init__(self, run: ParamRun, signal: KeyboardInterrupt) -> None:
        super().__init__("interrupted")
        self.run = run
        self.signal = signal


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
    proves itself (:mod:`fidelity._cli.probe.pairing`)."""
    try:
        args = _arguments(param, pinned, dict(plan.defaults))
    except UsageError as exc:
        return ParamRun(param=param, skipped=_cannot(exc))
    sub = _subplan(plan, param, args, share)
    run = _survey_sub(sub, param, payloads)
    if not run.skipped.startswith(_NO_ECHO):
        return run
    from fidelity._cli.probe.pairing import read_pairs

    top = param.path.segments[0] if param.path.segments else None
    pairs, why = read_pairs(param.tool, top, args, readers)
    tried: list[str] = []
    spent = run.requests
    for pair in pairs:
        left = None if share is None else share - spent
        if left is not None and left < _LEAST:
            tried.append(f"{pair.tool}: not tried within --max-requests")
            break
        paired = dataclasses.replace(
            sub, read_tool=pair.tool, read_args=pair.args, max_requests=left
        )
        attempt = _survey_sub(paired, param, payloads)
        spent += attempt.requests
        if attempt.card is not None or attempt.fatal:
            return dataclasses.replace(attempt, paired=pair.describe(param.name), requests=spent)
        tried.append(f"{pair.tool}: {attempt.skipped.removeprefix('no read-back: ')}")
    reason = "; ".join(tried) if tried else why
    return dataclasses.replace(
        run, skipped=f"{run.skipped}; no read tool paired ({reason})", requests=spent
    )


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


def run_param(
    sub: ProbePlan, param: Row, probe: Probe, payloads: Sequence[Payload], *, name: str = ""
) -> ParamRun:
    """One row's run on its open probe: the calibration call, the payloads within the
    plan's budget, the verdict (``name`` the card's, else the single form's)."""
    from probes.frontend import CalibrationFailed

    per_payload = calls_per_payload(sub, probe)
    try:
        if probe.needs_calibration:
            probe.calibrate(pace=calibration_pace(sub, probe))
    except CalibrationFailed as exc:
        return ParamRun(
            param=param, skipped=f"no read-back: {exc.answer}", requests=probe.requests or 0
        )
    except UsageError as exc:
        return ParamRun(
            param=param, skipped=f"no read-back: {one_line(str(exc))}", requests=probe.requests or 0
        )
    except TargetError as exc:
        reason = one_line(str(exc)).rstrip(".")
        return ParamRun(
            param=param,
            skipped=f"not surveyed: {reason}",
            failure=f"{param.name}: {reason}",
            requests=probe.requests or 0,
        )
    todo, examples = within_budget(sub, payloads, per_payload, probe, spent=probe.requests or 0)
    name = name or card_name(sub, probe)
    seen: list[Observation] = []
    try:
        # The calibration call, or the parameter before, has just called the server.
        swept = sweep(
            sub, probe, todo=todo, examples=examples, name=name, calibrated=True, seen=seen
        )
    except KeyboardInterrupt as signal:
        cut = survey_of(sub, probe.name, seen, examples, name=name, target=probe.environment)
        card = run_card(cut, probe.setup, complete=False)
        run = ParamRun(param=param, card=card, outcomes=cut.outcomes, observations=cut.observations)
        raise _Interrupted(run, signal) from None
    result = swept.result or survey_of(
        sub, probe.name, seen, examples, name=name, target=probe.environment
    )
    # The verdict, once (a run the breaker stopped is not judged: it did not finish).
    verdict = None if swept.stopped else judge(result.observations, read=None, read_found=True)
    warnings = run_warnings(probe, verdict)
    failure = _failure(param, swept.stopped, result.observations, verdict)
    nothing = verdict.failure if verdict is not None and not verdict.protocol else ""
    if nothing and not failure:
        # Kept with the parameter's card, as printed: a reader of the JSON sees it too.
        warnings = (*warnings, nothing)
    card = run_card(result, probe.setup, complete=not swept.stopped).with_warnings(warnings)
    return ParamRun(
        param=param,
        card=card,
        outcomes=result.outcomes,
        observations=result.observations,
        unexpected=result.unexpected,
        failure=failure,
        nothing=nothing,
        note=stop_note(seen) if swept.stopped else "",
        planned=len(payloads) + sub.examples,
        requests=probe.requests or 0,
    )


def _failure(
    param: Row, stopped: str, observations: Sequence[Observation], verdict: Verdict | None
) -> str:
    """The sentence of a parameter whose run failed (as the single-tool form's exit 3)."""
    if stopped:
        return f"{param.name}: {stopped}"
    broken = broke(observations)
    if broken:
        return f"{param.name}: {broken}."
    return f"{param.name}: {verdict.failure}" if verdict is not None and verdict.protocol else ""


# -- the whole run ------------------------------------------------------------------


def _check_pins(plan: ProbePlan, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    pinned = dict(plan.args_for)
    unknown = [t for t in pinned if t not in names]
    if unknown:
        raise UsageError(
            f"--args-for names {', '.join(repr(safe(t)) for t in unknown)}, which this MCP "
            f"server does not offer; its tools are: {', '.join(safe(n) for n in sorted(names))}."
        )
    return pinned


def _left_out(plan: ProbePlan, tools: Sequence[McpTool], inv: Inventory) -> Inventory:
    """The inventory with the parameters the user left out marked so: those of the tools
    ``--skip-tool``/``--only-tool`` leave out (never called), and those ``--default``
    gives; a glob that matches no tool is a usage error."""
    from fidelity._cli.probe.isolation import left_out

    names = [t.name for t in tools]
    for option, globs in (("--skip-tool", plan.skip_tools), ("--only-tool", plan.only_tools)):
        for glob in globs:
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


def execute_all(plan: ProbePlan) -> int:
    """Run ``fidelity probe --all-tools`` as planned; return the exit code."""
    from fidelity._cli.probe.isolation import left_out
    from fidelity._cli.probe.listing import _tools_of
    from fidelity._cli.probe.outputs import check_outputs
    from probes.frontend import inventory

    check_outputs(plan)
    tools = _tools_of(plan, reads=True)
    inv = _left_out(plan, tools, inventory(tools, allow_destructive=plan.yes, switch="--yes"))
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
    runs: list[ParamRun] = []
    spent = 0
    # A tool left out is never called, as a read-back either.
    readers = [
        t for t in tools if t.read_only and not left_out(t.name, plan.skip_tools, plan.only_tools)
    ]
    try:
        for i, param in enumerate(surveyed):
            share = None
            if plan.max_requests is not None:
                # What is left, spread over the parameters still to come.
                share = (plan.max_requests - spent) // (len(surveyed) - i)
            run = _survey_param(
                plan, param, pinned.get(param.tool.name), payloads, share, readers=readers
            )
            spent += run.requests
            runs.append(run)
            write_progress(plan, inv, runs, complete=False)
            if run.fatal:
                break
    except _Interrupted as cut:
        runs.append(cut.run)
        _write_all_reports(plan, inv, runs, complete=False)
        raise cut.signal from None
    except KeyboardInterrupt:
        _write_all_reports(plan, inv, runs, complete=False)
        raise
    complete = not any(r.fatal for r in runs)
    _write_all_reports(plan, inv, runs, complete=complete)
    return _verdict(plan, inv, runs, payloads)


# -- outputs ------------------------------------------------------------------------


def _collection(inv: Rows, runs: Sequence[ParamRun], *, complete: bool) -> str:
    from fidelity._report.json_doc import COLLECTION, SCHEMA_VERSION, dump

    cards = [r.card for r in runs if r.card is not None]
    done = {r.param.name for r in runs}
    skipped = [
        {"tool": p.tool.name, "param": str(p.path), "reason": p.skipped} for p in inv.skipped
    ] + [
        {"tool": r.param.tool.name, "param": str(r.param.path), "reason": r.skipped}
        for r in runs
        if r.card is None and r.skipped
    ]
    document = {
        "schema_version": SCHEMA_VERSION,
        "record": COLLECTION,
        "cards": [c.to_dict() for c in cards],
        "not_surveyed": skipped,
        "not_reached": [p.name for p in inv.surveyed if p.name not in done],
        "paired": [r.paired for r in runs if r.paired],
        "tools_without_string_parameters": [t.name for t in inv.without_strings],
        "complete": complete,
    }
    return dump(document)


def write_progress(plan: ProbePlan, inv: Rows, runs: Sequence[ParamRun], *, complete: bool) -> None:
    """Keep the JSON result file current after each parameter (not ``-``: stdout gets
    the final result only)."""
    from fidelity._report.document import write as write_atomic

    if plan.json is not None and plan.json != "-":
        write_atomic(plan.json, _collection(inv, runs, complete=complete), "--json")


def _write_all_reports(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    *,
    complete: bool,
    noun: str = "tool parameter",
) -> None:
    """Write the JSON collection, the --html page and a --card block per parameter,
    each on its own (as the single-tool form does; a card of a run that did not
    complete never replaces a complete block); the first failure is raised after."""
    from fidelity._cli.probe.outputs import write_card, write_each
    from fidelity._report.document import write as write_atomic

    steps: list[Any] = []
    if plan.json is not None:
        text = _collection(inv, runs, complete=complete)
        if plan.json == "-":
            steps.append(lambda: (sys.stdout.write(text), sys.stdout.flush()))
        else:
            json_path = plan.json
            steps.append(lambda: write_atomic(json_path, text, "--json"))
    cards = [r.card for r in runs if r.card is not None]
    if plan.card is not None:
        steps += [lambda card=card: write_card(plan, card, None) for card in cards]
    if plan.html is not None:
        from fidelity._core.version import __version__
        from fidelity._report.html.tools import render_tools_html

        skipped = [(p.tool.name, str(p.path), p.skipped) for p in inv.skipped] + [
            (r.param.tool.name, str(r.param.path), r.skipped)
            for r in runs
            if r.card is None and r.skipped
        ]
        page = render_tools_html(
            plan.shown_target,
            [(r.param.tool.name, str(r.param.path), r.card) for r in runs if r.card is not None],
            skipped,
            version=__version__,
            order=[p.tool.name for p in inv.params],
            noun=noun,
        )
        html_path = plan.html
        steps.append(lambda: write_atomic(html_path, page, "--html"))
    if plan.junit is not None:
        from fidelity._cli.junit import write_junit

        junit_path = plan.junit
        steps.append(lambda: write_junit(junit_path, cards))
    write_each(steps)


def report_runs(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    *,
    complete: bool,
    noun: str = "tool parameter",
) -> int:
    """Write every output of a finished run, print its map and lines, and return the
    exit code by the run's verdict rules (``noun`` names a row in the sentences)."""
    _write_all_reports(plan, inv, runs, complete=complete, noun=noun)
    return _verdict(plan, inv, runs, payloads, noun=noun)


def _verdict(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    *,
    noun: str = "tool parameter",
) -> int:
    """Print the map and the lines of the run, then apply the run's verdict rules."""
    stream = sys.stderr if plan.json == "-" else sys.stdout
    surveyed = [r for r in runs if r.card is not None]
    lines = (
        [] if plan.quiet else [*_map_lines(plan, surveyed, noun), *_left_out_lines(inv, runs, noun)]
    )
    lines += [f"paired: {r.paired}" for r in runs if r.paired and not plan.quiet]
    for run in surveyed:
        if run.card is not None:
            lines += [
                f"warning: {safe(run.param.name)}: {safe(w)}" for w in run.card.facts.warnings
            ]
    lines += [f"failed: {safe(r.failure)}" for r in runs if r.failure]
    lines.append(_summary(plan, runs, payloads, noun))
    stream.write("\n".join(lines) + "\n")
    stream.flush()
    return _exit_code(inv, runs, noun)


def _map_lines(
    plan: ProbePlan, surveyed: Sequence[ParamRun], noun: str = "tool parameter"
) -> list[str]:
    """The map of the parameters surveyed, and a fix per rewrite (once)."""
    from fidelity._report.tools_map import render_tools_map

    if not surveyed:
        return []
    seen = {r.family for run in surveyed for r in run.outcomes}
    families = [f for f in (plan.families or FAMILIES) if f in seen]
    header = "tool.param" if noun == "tool parameter" else noun
    table = render_tools_map(
        [(r.param.name, r.outcomes) for r in surveyed], families, header=header
    )
    # How to fix each rewrite, once per line however many parameters show it.
    hints = (h.line() for r in surveyed if r.card is not None for h in r.card.hints())
    return [table.rstrip("\n"), *dict.fromkeys(hints)]


def _not_surveyed(inv: Rows, runs: Sequence[ParamRun]) -> list[tuple[str, str]]:
    """The parameters left out, and why: by the inventory, or by their own run."""
    return [(p.name, p.skipped) for p in inv.skipped] + [
        (r.param.name, r.skipped) for r in runs if r.card is None and r.skipped
    ]


def _left_out_lines(inv: Rows, runs: Sequence[ParamRun], noun: str = "tool parameter") -> list[str]:
    """What was not surveyed, not called, not reached."""
    lines: list[str] = []
    not_surveyed = _not_surveyed(inv, runs)
    if not_surveyed:
        width = max(len(safe(n)) for n, _ in not_surveyed)
        lines.append(f"not surveyed ({len(not_surveyed)}):")
        lines += [f"  {safe(n):<{width}}  {safe(why)}" for n, why in not_surveyed]
    if inv.without_strings:
        names = ", ".join(safe(t.name) for t in inv.without_strings)
        group, _, thing = noun.partition(" ")
        lines.append(f"{group}s without a string {thing} (not called): {names}")
    done = {r.param.name for r in runs}
    unreached = [p.name for p in inv.surveyed if p.name not in done]
    if unreached:
        lines.append(f"not reached (the run stopped first): {', '.join(map(safe, unreached))}")
    return lines


def _exit_code(inv: Rows, runs: Sequence[ParamRun], noun: str = "tool parameter") -> int:
    """The verdict of a run over many tool parameters (see ``--help``): exit 3 when
    the server or a parameter's run broke or nothing was measured, else 1 on rewrites
    beyond ``--allow``, else 0."""
    surveyed = [r for r in runs if r.card is not None]
    fatal = next((r for r in runs if r.fatal), None)
    if fatal is not None:
        raise TargetError(fatal.failure)
    if surveyed and all(r.nothing or r.failure for r in surveyed):
        raise TargetError(
            f"nothing was measured: no payload sent to any of the {len(surveyed)} "
            f"{noun}s surveyed came back (the lines starting 'warning:' say why)."
        )
    if not surveyed:
        raise TargetError(f"nothing was measured: {_none_surveyed(inv, noun)}")
    failures = [r for r in runs if r.failure]
    if failures:
        names = ", ".join(safe(r.param.name) for r in failures)
        raise TargetError(
            f"{len(failures)} of the {len(runs)} {noun}s run broke ({names}); the "
            "lines starting 'failed:' say why, and the results are kept."
        )
    nothing = unmeasured([r.param.name for r in _unmeasured(runs)], surveyed=len(runs), noun=noun)
    if nothing:
        raise TargetError(nothing)
    unexpected = set().union(*(r.unexpected for r in surveyed))
    return ExitCode.DIFFERENT if unexpected else ExitCode.OK


def _unmeasured(runs: Sequence[ParamRun]) -> list[ParamRun]:
    """The parameters run that measured nothing: no read-back, arguments that could
    not be made, or every payload lost or rejected (a run that broke is counted apart)."""
    return [r for r in runs if not r.failure and (r.nothing or (r.card is None and r.skipped))]


def _none_surveyed(inv: Rows, noun: str = "tool parameter") -> str:
    tools = len({p.tool.name for p in inv.params})
    params = len(inv.params)
    group, _, thing = noun.partition(" ")  # tool parameter, operation field
    which = (
        f"the one string {thing} ({safe(inv.params[0].name)})"
        if params == 1
        else f"none of the {params} string {thing}s (of {tools} {group}{'s' if tools != 1 else ''})"
    )
    verb = "could not be surveyed" if params == 1 else "could be surveyed"
    return f"{which} {verb} (see 'not surveyed' above for why)."


def _summary(
    plan: ProbePlan,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    noun: str = "tool parameter",
) -> str:
    surveyed = [r for r in runs if r.card is not None]
    observations = [o for r in surveyed for o in r.observations]
    counts: dict[Status, int] = {}
    for obs in observations:
        counts[obs.status] = counts.get(obs.status, 0) + 1
    shown = ", ".join(f"{counts[s]} {s.value}" for s in Status if counts.get(s))
    line = (
        f"{len(observations)} payload{'s' if len(observations) != 1 else ''} to "
        f"{len(surveyed)} {noun}{'s' if len(surveyed) != 1 else ''}: {shown or 'none'}"
    )
    client = sum(1 for o in observations if o.client_side)
    if client:
        line += f" ({client} failed in the client library before reaching the target)"
    unexpected = sorted(set().union(*(r.unexpected for r in surveyed)))
    if unexpected:
        line += f"; rewrites beyond --allow: {', '.join(unexpected)}"
    unsent = sum(max(0, r.planned - len(r.observations)) for r in surveyed if not r.failure)
    if plan.max_requests is not None and unsent:
        line += f"; {unsent} not sent within --max-requests {plan.max_requests}"
    empty = len(_unmeasured(runs))
    measured = sum(1 for r in surveyed if not r.nothing and not r.failure)
    line += "; " + measured_counts(measured, empty, noun.partition(" ")[2])
    return safe(line) + "."


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
