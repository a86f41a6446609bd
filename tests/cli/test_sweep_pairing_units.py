"""Which tools ``--all-tools`` may read a value back with: the rule, tool by tool.

A reader must be annotated ``readOnlyHint: true``, or (with ``--yes``, the caller's
consent) be named as a read and not as a write, and never be annotated
``readOnlyHint: false``. A write or destructive tool is never a read-back, wherever the
server lists it. (The vault runs of ``test_cli_probe_all_tools_truth.py`` show the same
rule against a real server.)
"""

from __future__ import annotations

import pytest

from fidelity._sweep.pairing import is_reader, read_pairs
from probes import McpTool

_PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
_WRITE = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}


def _tool(
    name: str, annotations: dict[str, object] | None = None, description: str = ""
) -> McpTool:
    return McpTool(
        name=name, description=description, input_schema=_PATH, annotations=annotations or {}
    )


@pytest.mark.parametrize(
    ("tool", "without_yes", "with_yes"),
    [
        (_tool("lookup", {"readOnlyHint": True}), True, True),
        (_tool("read_note"), False, True),
        (_tool("getNote"), False, True),
        (_tool("note", description="Reads a note."), False, True),
        # named as a read, but annotated as one that may write: never
        (_tool("get_note", {"readOnlyHint": False}), False, False),
        (_tool("fetch_page", {"readOnlyHint": False, "destructiveHint": True}), False, False),
        # named as a write, whatever else the name says
        (_tool("update_note"), False, False),
        (_tool("delete_note"), False, False),
        (_tool("get_or_create_note"), False, False),
        (_tool("note", description="Deletes a note."), False, False),
        # nothing says it reads
        (_tool("note"), False, False),
    ],
    ids=lambda v: v.name if isinstance(v, McpTool) else None,
)
def test_who_may_read_back(tool: McpTool, without_yes: bool, with_yes: bool) -> None:
    assert is_reader(tool, consent=False) is without_yes
    assert is_reader(tool, consent=True) is with_yes


def test_a_write_listed_before_the_reader_is_never_its_read_back() -> None:
    write = McpTool(name="write_note", input_schema=_WRITE)
    listed = [
        McpTool(name="update_note", input_schema=_WRITE),
        _tool("delete_note", {"destructiveHint": True}),
        _tool("get_note", {"readOnlyHint": False}),
        write,
        _tool("read_note"),
    ]
    readers = [t for t in listed if is_reader(t, consent=True)]
    pairs, why = read_pairs(write, "content", {"path": "n-1", "content": "x"}, readers)
    assert why == ""
    assert [(p.tool, p.args, p.unannotated) for p in pairs] == [
        ("read_note", {"path": "n-1"}, True)
    ]
