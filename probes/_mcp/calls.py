"""The calls an MCP probe makes for each payload, resolved against the server's tools.

:func:`plan_calls` checks a probe's options against the tool list before anything is
called: every named tool exists, the payload's path fits the tool's input schema (or,
when no path is given, the tool's one free-form string parameter is found), and it
lists every tool the run will call, with its role, for the consent check. The
resulting :class:`CallPlan` makes the arguments of each call for one payload:
the setup steps', the payload tool's and the read tool's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes._mcp.schema import object_schema, schema_at, string_params
from probes._mcp.template import ArgumentTemplate, Step
from probes._mcp.tools import (
    DestructiveToolRefused,
    McpTool,
    Refusal,
    consent_reason,
    consent_words,
)
from probes._payload.paths import ParamPath, put
from probes._payload.placeholders import Filled

__all__ = [
    "ArgumentFiller",
    "CallPlan",
    "check_consent",
    "choose_param",
    "listing_change",
    "other_arguments",
    "plan_calls",
]

#: Makes a tool's other required arguments from its listing and the payload's parameter.
ArgumentFiller = Callable[[McpTool, str], Mapping[str, Any]]

_SHOWN_PARAMS = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPlan:
    """What one payload costs and how each call's arguments are made.

    ``param`` is where the payload goes besides the ``{payload}`` places of
    ``template`` (``None`` when only those); ``param_found`` says it was taken from the
    tool's schema. ``base`` holds the arguments when no template was given (the
    tool's other required arguments, generated once). ``calls`` lists each tool the
    run calls with its roles, for the consent check.
    """

    tool: McpTool
    param: ParamPath | None
    param_found: bool
    template: ArgumentTemplate | None
    base: Mapping[str, Any]
    steps: tuple[Step, ...]
    read_tool: McpTool | None
    read_template: ArgumentTemplate | None
    calls: tuple[tuple[McpTool, str], ...]

    @property
    def payload_paths(self) -> tuple[ParamPath, ...]:
        """Every place the payload goes in the tool's arguments."""
        placed = self.template.payload_paths if self.template is not None else ()
        # A template at ``param`` ("{payload}{mark}") is kept: the payload goes into it.
        embedded = self.template.embedded if self.template is not None else ()
        if self.param is None or self.param in placed or self.param in embedded:
            return placed
        return (self.param, *placed)

    @property
    def label(self) -> str:
        """The payload's place(s) as one name (``edits[0].oldText+edits[0].newText``)."""
        return "+".join(str(p) for p in self.payload_paths)

    @property
    def block_label(self) -> str:
        """:attr:`label` in the characters a card block name allows."""
        return "+".join(p.block_name for p in self.payload_paths)

    def arguments(self, values: Filled) -> dict[str, Any]:
        """The payload tool's arguments for one payload."""
        if self.template is not None:
            arguments = self.template.fill(values)
        else:
            arguments = copy.deepcopy(dict(self.base))
        if self.param is not None and self.param in self.payload_paths:
            arguments = put(arguments, self.param, values.payload)
        return arguments

    def read_arguments(self, values: Filled, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The read tool's arguments: its template filled, or by default those of the
        payload tool's ``arguments`` it accepts (its locator: a path, an id), without
        the payload itself."""
        if self.read_template is not None:
            return self.read_template.fill(values)
        assert self.read_tool is not None
        wanted = set(self.read_tool.properties)
        embedded = self.template.embedded if self.template is not None else ()
        carrying = {p.top for p in (*self.payload_paths, *embedded)}
        return {k: v for k, v in arguments.items() if k in wanted and k not in carrying}


def choose_param(tool: McpTool, template: ArgumentTemplate | None) -> ParamPath:
    """The tool's one free-form string parameter that ``template`` does not set.

    Several, or none, is a ``UsageError`` listing the tool's string parameters.
    """
    params = string_params(tool.input_schema)
    free = [p.path for p in params if p.free and (template is None or not template.has(p.path))]
    if len(free) == 1:
        return free[0]
    listed = _listing([str(p.path) + ("" if p.free else " (constrained)") for p in params])
    if not free:
        raise UsageError(
            f"tool {safe(tool.name)!r} has no free-form string parameter left for the payload "
            f"(its string parameters: {listed}); name the place with param='PATH' or put "
            '"{payload}" where it goes in args={...}.'
        )
    return _ambiguous(tool, [str(p) for p in free])


def _ambiguous(tool: McpTool, free: list[str]) -> ParamPath:
    raise UsageError(
        f"tool {safe(tool.name)!r} has {len(free)} free-form string parameters "
        f"({_listing(free)}); name the payload's with param='PATH' (such as "
        f'param={free[-1]!r}) or put "{{payload}}" where it goes in args={{...}}.'
    )


def _listing(names: list[str]) -> str:
    shown = ", ".join(safe(n) for n in names[:_SHOWN_PARAMS]) or "none"
    return shown + (f" and {len(names) - _SHOWN_PARAMS} more" if len(names) > _SHOWN_PARAMS else "")


def _check_param(tool: McpTool, path: ParamPath) -> None:
    """Refuse a path the tool's schema rules out, naming the string parameters."""
    schemas = schema_at(tool.input_schema, path)
    if schemas is None:
        return
    strings = _listing([str(p.path) for p in string_params(tool.input_schema)])
    if not schemas:
        if len(path.segments) == 1 and tool.properties:
            raise UsageError(
                f"param={safe(str(path))!r} is not an argument of tool {safe(tool.name)!r}; "
                f"its arguments are: {', '.join(safe(p) for p in tool.properties)}."
            )
        raise UsageError(
            f"param={safe(str(path))!r} does not lead anywhere in tool {safe(tool.name)!r}'s "
            f"input schema; its string parameters are: {strings}."
        )
    kinds: set[str] = set()
    for schema in schemas:
        kind = schema.get("type")
        if kind is None:
            return
        kinds |= {kind} if isinstance(kind, str) else {str(k) for k in kind}
    if "string" not in kinds:
        raise UsageError(
            f"param={safe(str(path))!r} is {'/'.join(sorted(map(safe, kinds)))} in tool "
            f"{safe(tool.name)!r}'s input schema, not text; its string parameters are: {strings}."
        )


def _base(tool: McpTool, param: ParamPath | None, fill: ArgumentFiller | None) -> dict[str, Any]:
    """The tool's arguments without a template: its other required arguments made by
    ``fill``, and the containers along ``param`` with their required keys."""
    if param is None:
        return {}
    top = param.top
    assert isinstance(top, str)
    required = tool.input_schema.get("required")
    others = [r for r in required if r != top] if isinstance(required, list) else []
    nested = len(param.segments) > 1
    if not others and not nested:
        return {}
    if fill is None:
        if not others:
            return {}
        raise UsageError(
            f"tool {safe(tool.name)!r} needs the arguments {', '.join(map(safe, others))}; "
            "pass them as args={...}."
        )
    base = {k: v for k, v in fill(tool, top).items() if k != top} if others else {}
    if not nested:
        return base

    def make(here: ParamPath) -> dict[str, Any]:
        """The required keys of an object created at ``here`` (the payload's key left out)."""
        following = param.segments[len(here.segments)]
        schemas = schema_at(tool.input_schema, here) or []
        schema = object_schema(schemas)
        if not isinstance(following, str) or not schema.get("required"):
            return {}
        level = McpTool(name=tool.name, input_schema=schema)
        return {k: v for k, v in fill(level, following).items() if k != following}

    return put(base, param, "", make=make)


def other_arguments(tool: McpTool, param: ParamPath, fill: ArgumentFiller) -> dict[str, Any]:
    """The arguments the payload tool gets besides the payload at ``param``, as
    :func:`plan_calls` makes them without a template: the other required arguments
    made by ``fill``, and the containers along ``param`` with their required keys (the
    payload's own place holds ``""``). A ``UsageError`` when ``fill`` cannot make them."""
    return _base(tool, param, fill)


def plan_calls(
    tools: tuple[McpTool, ...],
    *,
    tool: str,
    param: ParamPath | None,
    template: ArgumentTemplate | None,
    steps: tuple[Step, ...],
    read_tool: str | None,
    read_template: ArgumentTemplate | None,
    fill: ArgumentFiller | None,
    helpers: tuple[str, ...] = (),
) -> CallPlan:
    """Resolve the options against the server's ``tools``; ``UsageError`` when they do
    not fit. ``helpers`` are other tools the run calls (the reflector's)."""
    by_name = {t.name: t for t in tools}
    names = ", ".join(safe(n) for n in sorted(by_name)) or "none"

    def lookup(role: str, name: str) -> McpTool:
        info = by_name.get(name)
        if info is None:
            raise UsageError(
                f"{role}={safe(name)!r} is not offered by this MCP server; its tools are: {names}."
            )
        return info

    chosen = lookup("tool", tool)
    reader = lookup("read_tool", read_tool) if read_tool is not None else None
    for i, step in enumerate(steps, 1):
        if step.tool not in by_name:
            raise UsageError(
                f"setup step {i} calls {safe(step.tool)!r}, which this MCP server does not "
                f"offer; its tools are: {names}."
            )
    found = False
    if param is not None:
        _check_param(chosen, param)
    elif template is None or not template.payload_paths:
        param, found = choose_param(chosen, template), True
    base = _base(chosen, param, fill) if template is None else {}
    calls: list[tuple[McpTool, str]] = [
        *((by_name[s.tool], f"setup step {i}") for i, s in enumerate(steps, 1)),
        (chosen, "payload tool"),
        *(((reader, "read tool"),) if reader is not None else ()),
        *((by_name[h], "reflector helper") for h in helpers if h in by_name),
    ]
    return CallPlan(
        tool=chosen,
        param=param,
        param_found=found,
        template=template,
        base=base,
        steps=steps,
        read_tool=reader,
        read_template=read_template,
        calls=tuple(calls),
    )


def check_consent(calls: tuple[tuple[McpTool, str], ...], allowed: bool) -> None:
    """Raise :class:`DestructiveToolRefused` unless every tool called is annotated
    read-only, or ``allowed``."""
    if allowed:
        return
    roles: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for info, role in calls:
        reason = consent_reason(info)
        if reason:
            roles.setdefault(info.name, []).append(role)
            reasons[info.name] = reason
    if roles:
        refused = [
            Refusal(tool=name, role=", ".join(dict.fromkeys(r)), reason=reasons[name])
            for name, r in roles.items()
        ]
        raise DestructiveToolRefused(refused[0].tool, refused)


def listing_change(
    calls: tuple[tuple[McpTool, str], ...], listed: tuple[McpTool, ...], allowed: bool
) -> str:
    """How a new listing of the tools breaks a plan made on an earlier one, in one
    sentence (``""`` when it does not): a planned tool is no longer listed, or (unless
    ``allowed``) is no longer annotated read-only."""
    by_name = {tool.name: tool for tool in listed}
    for info, role in calls:
        now = by_name.get(info.name)
        if now is None:
            change = "is no longer listed"
        elif not allowed and consent_reason(now):
            reason = consent_reason(now)
            change = (
                f"now has {reason}"
                if reason.startswith("no ")
                else f"is now {consent_words(reason)}"
            )
        else:
            continue
        return (
            f"the MCP server listed its tools again on a new session and tool "
            f"{safe(info.name)!r} ({role}) {change}; the run was planned on the first "
            "listing, so nothing more is called."
        )
    return ""
