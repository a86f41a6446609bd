"""Every string parameter of every tool a server lists: what a whole-server run surveys.

:func:`inventory` walks each tool's input schema (:func:`~probes._mcp.schema.string_params`:
top level and nested, through objects, arrays, ``anyOf`` and ``$ref``) and lists each
place a string goes as a :class:`ToolParam`, addressed like ``param`` of
``probes.mcp`` (``edit_file.edits[0].oldText``). A parameter is surveyed unless one
of these says otherwise, in this order: the string is constrained (``enum``,
``const``, ``format``, ``pattern``...: not free text, so not sent garbage), or the
tool is not annotated ``readOnlyHint: true`` and the caller did not consent to
calling such tools. Tools without any string parameter are listed apart; they are
never called.
"""

from __future__ import annotations

from dataclasses import dataclass

from probes._mcp.schema import string_params
from probes._mcp.tools import McpTool, consent_reason, consent_words
from probes._payload.paths import ParamPath

__all__ = ["Inventory", "ToolParam", "inventory"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolParam:
    """One string parameter of one tool; ``skipped`` says why it is not surveyed
    (``""`` when it is)."""

    tool: McpTool
    path: ParamPath
    skipped: str = ""

    @property
    def name(self) -> str:
        """``tool.path``, as the run's rows and results name it (``edit_file.edits[0].oldText``)."""
        return f"{self.tool.name}.{self.path}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    """The string parameters of a server's tools (in the server's order, each tool's in
    schema order) and the tools that have none."""

    params: tuple[ToolParam, ...]
    without_strings: tuple[McpTool, ...]

    @property
    def surveyed(self) -> tuple[ToolParam, ...]:
        """The parameters to survey."""
        return tuple(p for p in self.params if not p.skipped)

    @property
    def skipped(self) -> tuple[ToolParam, ...]:
        """The parameters left out, each with its reason."""
        return tuple(p for p in self.params if p.skipped)


def inventory(
    tools: tuple[McpTool, ...], *, allow_destructive: bool, switch: str = "allow_destructive=True"
) -> Inventory:
    """Every string parameter of ``tools``, surveyed or skipped with its reason (the
    consent reason names ``switch``, the caller's way to give consent)."""
    params: list[ToolParam] = []
    without: list[McpTool] = []
    for tool in tools:
        found = string_params(tool.input_schema)
        if not found:
            without.append(tool)
            continue
        refused = "" if allow_destructive else consent_reason(tool)
        for param in found:
            if not param.free:
                reason = f"constrained ({param.constraint}): not free-form text"
            elif refused:
                reason = f"needs {switch} ({consent_words(refused)})"
            else:
                reason = ""
            params.append(ToolParam(tool=tool, path=param.path, skipped=reason))
    return Inventory(params=tuple(params), without_strings=tuple(without))
