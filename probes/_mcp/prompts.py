"""MCP prompts and resource templates probed as if they were tools.

A prompt (``prompts/get``) takes string arguments and answers messages; a resource
template (``resources/read`` of a URI made from the template) takes the values of its
variables and answers contents. Both are read-only by the protocol's design, so they
need no consent. Each is given a record shaped like a tool (:class:`McpTool`) so the
rest of the probe plans, fills and reads it as it does a tool's call:

- ``prompt:NAME`` takes the prompt's arguments as string properties (those the
  prompt requires, required);
- ``resource:TEMPLATE`` takes each variable of the URI template as a required string.

:func:`answer_of` turns the answer (``GetPromptResult``, ``ReadResourceResult``) into a
result the readers understand: the text of each message (or of each text content), in
order, as text content. :func:`expand` makes a URI from a template (RFC 6570 level 2:
``{var}`` percent-encodes every reserved character, ``{+var}`` and ``{#var}`` keep
them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from probes._mcp.tools import McpTool

__all__ = [
    "PROMPT",
    "RESOURCE",
    "Answer",
    "Route",
    "answer_of",
    "expand",
    "prompt_tools",
    "route_of",
    "template_tools",
    "variables",
]

#: The prefixes of the tool-shaped names: ``prompt:NAME``, ``resource:TEMPLATE``.
PROMPT, RESOURCE = "prompt", "resource"
_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
#: RFC 3986 reserved characters, kept by ``{+var}`` and ``{#var}``.
_RESERVED = ":/?#[]@!$&'()*+,;="
#: Marks a record made here (not a tool the server lists).
KIND = "x-param-fidelity-kind"


@dataclass(frozen=True, slots=True)
class Route:
    """Where a tool-shaped name leads: ``kind`` (``prompt`` or ``resource``) and the
    prompt's name or the URI template."""

    kind: str
    target: str


@dataclass(frozen=True, slots=True)
class _Text:
    text: str
    type: str = "text"


@dataclass(frozen=True, slots=True)
class Answer:
    """A prompt's or a resource's answer, shaped like a tool result for the readers."""

    content: list[_Text] = field(default_factory=list)
    is_error: bool = False
    structured_content: Any = None


def variables(template: str) -> tuple[str, ...]:
    """The variable names of a URI template, in order, each once."""
    names: list[str] = []
    for _, body in _EXPRESSION.findall(template):
        for spec in body.split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name and name not in names:
                names.append(name)
    return tuple(names)


def expand(template: str, values: Mapping[str, Any]) -> str:
    """The URI of ``template`` with ``values`` (strings; a missing one is left out)."""

    def one(match: re.Match[str]) -> str:
        operator, body = match.group(1), match.group(2)
        safe = _RESERVED if operator in ("+", "#") else ""
        prefix = {"#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&"}.get(operator, "")
        parts = []
        for spec in body.split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name not in values:
                continue
            value = quote(str(values[name]), safe=safe)
            parts.append(f"{name}={value}" if operator in (";", "?", "&") else value)
        if not parts:
            return ""
        joiner = {"": ",", "+": ",", "#": ",", ".": ".", "/": "/"}.get(operator, "&")
        if operator == ";":
            joiner = ";"
        return prefix + joiner.join(parts)

    return _EXPRESSION.sub(one, template)


def _record(name: str, properties: Sequence[tuple[str, str]], required: Sequence[str]) -> McpTool:
    return McpTool(
        name=name,
        input_schema={
            "type": "object",
            "properties": {p: {"type": "string", "description": d} for p, d in properties},
            "required": list(required),
        },
        annotations={"readOnlyHint": True, KIND: name.split(":", 1)[0]},
    )


def prompt_tools(prompts: Sequence[Any]) -> tuple[McpTool, ...]:
    """Tool-shaped records of the listed prompts (SDK ``Prompt`` objects)."""
    records = []
    for prompt in prompts:
        arguments = list(getattr(prompt, "arguments", None) or ())
        props = [(str(a.name), str(getattr(a, "description", "") or "")) for a in arguments]
        required = [str(a.name) for a in arguments if getattr(a, "required", False)]
        records.append(_record(f"{PROMPT}:{prompt.name}", props, required))
    return tuple(records)


def template_tools(templates: Sequence[Any]) -> tuple[McpTool, ...]:
    """Tool-shaped records of the listed resource templates (SDK ``ResourceTemplate``)."""
    records = []
    for template in templates:
        uri = str(getattr(template, "uri_template", ""))
        names = variables(uri)
        records.append(_record(f"{RESOURCE}:{uri}", [(n, "") for n in names], names))
    return tuple(records)


def route_of(tool: McpTool) -> Route | None:
    """Where a record made here leads (``None`` for a server's own tool)."""
    kind = tool.annotations.get(KIND)
    if kind not in (PROMPT, RESOURCE):
        return None
    return Route(kind=str(kind), target=tool.name.split(":", 1)[1])


def answer_of(result: Any) -> Answer:
    """The text of a ``GetPromptResult``'s messages or a ``ReadResourceResult``'s
    contents, in order, as text content."""
    texts: list[_Text] = []
    for message in getattr(result, "messages", None) or ():
        content: Any = getattr(message, "content", None)
        if getattr(content, "type", None) == "text" and isinstance(content.text, str):
            texts.append(_Text(content.text))
        elif getattr(content, "type", None) == "resource":
            text = getattr(getattr(content, "resource", None), "text", None)
            if isinstance(text, str):
                texts.append(_Text(text))
    for item in getattr(result, "contents", None) or ():
        text = getattr(item, "text", None)
        if isinstance(text, str):
            texts.append(_Text(text))
    return Answer(content=texts)
