"""Every string parameter of every tool, and why one is not surveyed (probes._mcp.inventory).

The schemas are those the reference servers list (server-filesystem's ``edit_file``,
mcp-server-git's ``git_log`` with its nullable strings, server-everything's
``gzip-file-as-resource``), plus ``$ref`` and ``const`` forms.
"""

from __future__ import annotations

from typing import Any

from _support.mcp import edit_file_schema

from probes._mcp.inventory import inventory
from probes._mcp.tools import McpTool

READ_ONLY = {"readOnlyHint": True}


def _tool(name: str, schema: dict[str, Any], annotations: dict[str, Any] | None = None) -> McpTool:
    return McpTool(name=name, input_schema=schema, annotations=annotations or {})


EDIT_FILE = _tool("edit_file", edit_file_schema(), {"readOnlyHint": False, "destructiveHint": True})
GIT_LOG = _tool(
    "git_log",
    {
        "type": "object",
        "properties": {
            "repo_path": {"type": "string"},
            "max_count": {"type": "integer"},
            "start_timestamp": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["repo_path"],
    },
    READ_ONLY,
)
GZIP = _tool(
    "gzip-file-as-resource",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "data": {"type": "string", "format": "uri"},
            "outputType": {"type": "string", "enum": ["resourceLink", "resource"]},
        },
    },
    {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)
REFS = _tool(
    "tag",
    {
        "type": "object",
        "$defs": {"Label": {"type": "string", "pattern": "^[a-z]+$"}, "Note": {"type": "string"}},
        "properties": {
            "label": {"$ref": "#/$defs/Label"},
            "kind": {"const": "note", "type": "string"},
            "note": {"$ref": "#/$defs/Note"},
        },
    },
    READ_ONLY,
)
SUM = _tool("get-sum", {"type": "object", "properties": {"a": {"type": "number"}}}, READ_ONLY)
BARE = _tool("bare", {"type": "object", "properties": {"text": {"type": "string"}}})


def _listed(allow: bool) -> dict[str, str]:
    found = inventory((EDIT_FILE, GIT_LOG, GZIP, REFS, SUM, BARE), allow_destructive=allow)
    return {p.name: p.skipped for p in found.params}


def test_every_string_parameter_in_schema_order_with_its_reason() -> None:
    assert _listed(allow=False) == {
        "edit_file.path": "needs allow_destructive=True (annotated destructiveHint: true)",
        "edit_file.edits[0].oldText": (
            "needs allow_destructive=True (annotated destructiveHint: true)"
        ),
        "edit_file.edits[0].newText": (
            "needs allow_destructive=True (annotated destructiveHint: true)"
        ),
        "git_log.repo_path": "",
        "git_log.start_timestamp": "",  # a nullable string is free text
        "gzip-file-as-resource.name": (
            "needs allow_destructive=True (annotated readOnlyHint: false)"
        ),
        "gzip-file-as-resource.data": "constrained (format: uri): not free-form text",
        "gzip-file-as-resource.outputType": "constrained (enum): not free-form text",
        "tag.label": "constrained (pattern: ^[a-z]+$): not free-form text",
        "tag.kind": "constrained (const): not free-form text",
        "tag.note": "",
        "bare.text": "needs allow_destructive=True (no annotations)",
    }


def test_consent_surveys_the_others_but_never_constrained_strings() -> None:
    listed = _listed(allow=True)
    assert [n for n, why in listed.items() if not why] == [
        "edit_file.path",
        "edit_file.edits[0].oldText",
        "edit_file.edits[0].newText",
        "git_log.repo_path",
        "git_log.start_timestamp",
        "gzip-file-as-resource.name",
        "tag.note",
        "bare.text",
    ]
    assert listed["gzip-file-as-resource.data"].startswith("constrained (format: uri)")


def test_tools_without_a_string_parameter_are_listed_apart() -> None:
    found = inventory((SUM, GIT_LOG), allow_destructive=False, switch="--yes")
    assert [t.name for t in found.without_strings] == ["get-sum"]
    assert [p.name for p in found.surveyed] == ["git_log.repo_path", "git_log.start_timestamp"]
    assert found.skipped == ()
    refused = inventory((BARE,), allow_destructive=False, switch="--yes")
    assert refused.skipped[0].skipped == "needs --yes (no annotations)"
