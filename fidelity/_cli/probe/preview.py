"""What ``fidelity probe --list-tools`` and ``--dry-run`` print: look before sending
anything.

``--list-tools`` connects to an MCP server and prints its tools, their arguments and
their annotations: a tool not annotated ``readOnlyHint: true`` is marked, since
calling it needs ``--yes``. ``--dry-run`` (one tool, one endpoint) connects to nothing
and prints where each payload would go and what it is, as terminal-safe text and code
points.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from fidelity._core.errors import ExitCode
from fidelity._core.render import safe
from fidelity._core.text import utf8_len
from fidelity._sweep.plan import ProbePlan, TargetKind
from probes.frontend import CALIBRATION_CALLS

__all__ = ["dry_run", "list_tools"]

_TEXT_CHARS = 48
_LOCATED = "located by three calibration calls before the first payload"
#: ``--list-tools`` prints at most this many tools, names and arguments cut to these
#: lengths (in code points): a server listing 100k tools gets a bounded listing.
_MAX_TOOLS = 200
_NAME_CHARS = 80
_MAX_ARGS = 12
_ARGS_CHARS = 200


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(schema: Any, depth: int = 0) -> str:
    """A schema's type in a few characters: ``string``, ``string|null``, ``string[]``,
    the branches of ``anyOf``/``oneOf`` joined by ``|``; ``any`` when it says none."""
    if not isinstance(schema, dict) or depth > 3:
        return "any"
    kind = schema.get("type")
    if kind == "array":
        return f"{_kind(schema.get('items'), depth + 1)}[]"
    if isinstance(kind, list):
        return "|".join(map(str, kind))
    if kind is not None:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            kinds = [_kind(b, depth + 1) for b in branches[:8]]
            return "|".join(dict.fromkeys(kinds))
    return "any"


def _schema_line(name: str, schema: Any, required: bool) -> str:
    mark = "" if required else "?"
    return f"{safe(_cut(name, 40))}{mark}: {safe(_cut(_kind(schema), 40))}"


def _arguments(props: dict[str, Any], required: set[Any]) -> str:
    """The first arguments of a tool, within ``_ARGS_CHARS``; the rest counted."""
    shown = [_schema_line(n, s, n in required) for n, s in list(props.items())[:_MAX_ARGS]]
    text = _cut(", ".join(shown), _ARGS_CHARS)
    more = len(props) - len(shown)
    return f"{text}, +{more} more" if more > 0 else text


def list_tools(plan: ProbePlan) -> int:
    """Print the MCP server's tools; return exit code 0."""
    from fidelity._sweep.listing import tools_cut_warning, tools_of
    from probes.frontend import consent_reason

    found: list[int] = []
    tools = tools_of(plan, cut=found)
    out = sys.stdout
    out.write(f"{len(tools)} tool{'s' if len(tools) != 1 else ''} on {safe(plan.shown_target)}:\n")
    if found and found[0]:
        out.write(f"  {tools_cut_warning(found[0])}\n")
    for tool in tools[:_MAX_TOOLS]:
        schema = dict(tool.input_schema)
        raw = schema.get("properties")
        props: dict[str, Any] = raw if isinstance(raw, dict) else {}
        listed = schema.get("required")
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        args = _arguments(props, required)
        reason = consent_reason(tool)
        tail = f"  [needs --yes: {safe(reason)}]" if reason else "  [read-only]"
        out.write(f"  {safe(_cut(tool.name, _NAME_CHARS))}({args}){tail}\n")
        if tool.description:
            first = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            shown = first if len(first) <= 100 else first[:97].rstrip() + "..."
            out.write(f"      {safe(shown)}\n")
    if len(tools) > _MAX_TOOLS:
        out.write(f"  ... and {len(tools) - _MAX_TOOLS} more tools, not shown.\n")
    if tools:
        out.write(
            "A tool is called without --yes only when annotated readOnlyHint: true; "
            "annotations are the server's hints, not guarantees.\n"
        )
    out.flush()
    return ExitCode.OK


def _where(plan: ProbePlan) -> list[str]:
    if plan.kind is TargetKind.HTTP:
        lines = [
            f"target: HTTP endpoint {safe(plan.shown_target)}",
            f"send: {safe(plan.send or 'json:text')}   read: {safe(plan.read or _LOCATED)}",
        ]
        if plan.read_url:
            ident = f" (its {{id}} from {safe(plan.id_from)})" if plan.id_from else ""
            lines.append(f"read back from: GET {safe(plan.read_url)}{ident}")
        return lines
    transport = "stdio command" if plan.kind is TargetKind.MCP_STDIO else "Streamable HTTP"
    args = (
        safe(json.dumps(plan.args, ensure_ascii=True))
        if plan.args is not None
        else "generated from the tool's input schema"
    )
    param = plan.param or (
        'where --args holds "{payload}"'
        if plan.args is not None and "{payload}" in json.dumps(plan.args)
        else "the tool's only free-form string parameter (found when connected)"
    )
    lines = [f"target: MCP server over {transport}: {safe(plan.shown_target)}"]
    for i, (tool, arguments) in enumerate(plan.before, 1):
        shown = safe(json.dumps(arguments, ensure_ascii=True))
        lines.append(f"before each payload, step {i}: {safe(tool)} {shown}")
    lines += [
        f"tool: {safe(plan.tool)}   payload argument: {safe(param)}",
        f"arguments: {args}",
    ]
    if plan.read_tool:
        read_args = (
            safe(json.dumps(plan.read_args, ensure_ascii=True))
            if plan.read_args is not None
            else "the tool's arguments it accepts"
        )
        lines.append(f"read back with tool: {safe(plan.read_tool)} {read_args}")
    lines.append(f"read: {safe(plan.read or _LOCATED)}")
    if plan.clients:
        lines.append(f"through each client in turn: {', '.join(plan.clients)}")
    return lines


def dry_run(plan: ProbePlan) -> int:
    """Print what one tool's (one endpoint's) run would send, send nothing; return exit
    code 0."""
    from fidelity._run.budget import examples_note, generated, within_budget
    from fidelity._sweep.execute import catalogue_payloads, with_seed

    payloads = catalogue_payloads(plan)
    plan = with_seed(plan)
    per = plan.calls_per_payload * max(1, len(plan.clients))
    # Without --read, the calibration call costs what a payload costs (not against the
    # MCP reflector, whose read-back is known; a dry run cannot tell).
    calibration = CALIBRATION_CALLS * per if plan.read is None else 0
    todo, examples = within_budget(plan, payloads, per, spent=calibration)
    extra = generated(plan, todo, examples)
    out = sys.stdout
    out.write("dry run: nothing is sent.\n")
    for line in _where(plan):
        out.write(f"  {line}\n")
    budget = f"  {len(todo)} payloads"
    if examples:
        budget += f", plus {len(extra)} generated examples (seed {plan.seed})"
    if plan.max_requests is not None:
        budget += f" (--max-requests {plan.max_requests}, {per} call(s) per payload"
        budget += f", {calibration} for the calibration)" if calibration else ")"
    out.write(budget + "\n")
    note = examples_note(examples, len(extra), plan.seed)
    if note:
        out.write(f"  {note}\n")
    width = max((len(p.id) for p in (*todo, *extra)), default=2)
    for payload in (*todo, *extra):
        text = payload.text
        shown = safe(text[:_TEXT_CHARS]) + (" ..." if len(text) > _TEXT_CHARS else "")
        out.write(f"  {safe(payload.id).ljust(width)}  {utf8_len(text):>6} B  {shown}\n")
    out.flush()
    return ExitCode.OK
