"""The tools an MCP server lists, and which of them a probe may call without consent.

The rule follows the MCP specification's defaults: ``readOnlyHint`` defaults to false
and ``destructiveHint`` to true, so a tool may change or delete data unless the
server says it is read-only. A probe calls a tool without ``allow_destructive`` only
when it is annotated ``readOnlyHint: true``; every tool a run will call (the payload
tool, the read tool, the setup steps, the reflector's helper tools) is checked before
the first call. Annotations are hints from a server that is not trusted: the rule
only errs on the side of asking.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.render import safe

__all__ = [
    "DestructiveToolRefused",
    "McpTool",
    "Refusal",
    "consent_reason",
    "consent_words",
    "tool_records",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class McpTool:
    """A tool as the server lists it: name, description, input schema and annotations.

    ``annotations`` uses the wire names (``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``); both mappings are read-only.
    """

    name: str
    title: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    annotations: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def read_only(self) -> bool:
        """True when the server annotates the tool ``readOnlyHint: true``."""
        return self.annotations.get("readOnlyHint") is True

    @property
    def destructive(self) -> bool:
        """True unless the tool is read-only or annotated ``destructiveHint: false``
        (the specification's default for a tool that may write is destructive)."""
        return not self.read_only and self.annotations.get("destructiveHint") is not False

    @property
    def properties(self) -> tuple[str, ...]:
        """The argument names of the input schema."""
        props = self.input_schema.get("properties")
        return tuple(props) if isinstance(props, dict) else ()


def consent_reason(tool: McpTool) -> str:
    """Why calling ``tool`` needs consent (``""`` when it is annotated read-only)."""
    annotations = tool.annotations
    if tool.read_only:
        return ""
    if not annotations:
        return "no annotations"
    if annotations.get("destructiveHint") is True:
        return "destructiveHint: true"
    if "readOnlyHint" in annotations:
        return f"readOnlyHint: {_shown(annotations['readOnlyHint'])}"
    return "no readOnlyHint"


def consent_words(reason: str) -> str:
    """A :func:`consent_reason` as said in a sentence: ``no annotations`` as it is,
    ``destructiveHint: true`` as ``annotated destructiveHint: true``."""
    return reason if reason.startswith("no ") else f"annotated {reason}"


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return safe(repr(value))


def tool_records(raw: Sequence[Any]) -> tuple[McpTool, ...]:
    """The listed tools as records (the Python SDK's ``Tool`` objects, or the wire's
    JSON objects); a name listed twice is a ``TargetError``."""
    tools = tuple(_record(t) for t in raw)
    twice = sorted(n for n, count in Counter(t.name for t in tools).items() if count > 1)
    if twice:
        names = ", ".join(repr(safe(n)) for n in twice[:5])
        raise TargetError(
            f"the MCP server lists the tool name{'s' if len(twice) > 1 else ''} {names} more "
            "than once, which the protocol does not allow: there is no telling which one a "
            "call would reach, so nothing is called."
        )
    return tools


def _record(tool: Any) -> McpTool:
    if isinstance(tool, Mapping):
        return _wire_record(tool)
    annotations = (
        tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
    )
    return McpTool(
        name=tool.name,
        title=tool.title or "",
        description=tool.description or "",
        input_schema=MappingProxyType(dict(tool.input_schema or {})),
        annotations=MappingProxyType(annotations),
    )


def _wire_record(tool: Mapping[str, Any]) -> McpTool:
    """A tool as the protocol lists it (``inputSchema``, ``annotations``), checked."""

    def text(key: str) -> str:
        value = tool.get(key)
        return value if isinstance(value, str) else ""

    schema, annotations = tool.get("inputSchema"), tool.get("annotations")
    return McpTool(
        name=text("name"),
        title=text("title"),
        description=text("description"),
        input_schema=MappingProxyType(dict(schema) if isinstance(schema, Mapping) else {}),
        annotations=MappingProxyType(
            {k: v for k, v in annotations.items() if v is not None}
            if isinstance(annotations, Mapping)
            else {}
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """One tool the run would call without consent: its name, role and annotations."""

    tool: str
    role: str
    reason: str


class DestructiveToolRefused(UsageError):
    """A tool the run would call is not annotated read-only, and the caller did not allow it.

    ``tool`` is the first such tool's name, ``refused`` every one of them with its role
    in the run (payload tool, read tool, setup step, reflector helper) and what its
    annotations say. The message names the API switch (``allow_destructive=True``); a
    front end names its own with :meth:`advice`.
    """

    def __init__(self, tool: str, refused: Sequence[Refusal] = ()) -> None:
        self.tool = tool
        self.refused = tuple(refused) or (Refusal(tool=tool, role="", reason=""),)
        super().__init__(self.advice("allow_destructive=True"))

    def advice(self, switch: str) -> str:
        """The refusal as one sentence that states the rule and tells the caller to pass
        ``switch``."""
        described = []
        for r in self.refused:
            notes = "; ".join(x for x in (r.role, consent_words(r.reason) if r.reason else "") if x)
            described.append(f"{safe(r.tool)!r}" + (f" ({notes})" if notes else ""))
        many = len(described) > 1
        names = ", ".join(described[:-1]) + " and " + described[-1] if many else described[0]
        return (
            f"tool{'s' if many else ''} {names} may change or delete data: a tool is called "
            f"without {switch} only when the server annotates it readOnlyHint: true "
            f"(annotations are the server's hints, not guarantees); point the run at "
            f"disposable data and pass {switch} to proceed."
        )
