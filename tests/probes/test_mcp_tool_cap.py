"""The tool cap inside one ``tools/list`` page (:mod:`probes._mcp.tool_cap`)."""

from __future__ import annotations

import json

from probes._mcp.tool_cap import MAX_TOOLS, ToolCap


def _page(count: int, cursor: str | None = "next") -> bytes:
    result: dict[str, object] = {"tools": [{"name": f"t{i}"} for i in range(count)]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return json.dumps({"jsonrpc": "2.0", "id": 2, "result": result}).encode() + b"\n"


def test_whole_lines_pass_and_a_partial_line_is_held_until_its_end() -> None:
    cap = ToolCap()
    assert cap.feed(b'{"a": 1}\n{"b"') == b'{"a": 1}\n'
    assert cap.feed(b": 2}") == b""
    assert cap.feed(b"\n") == b'{"b": 2}\n'
    assert cap.feed(b"tail without a break") == b""
    assert cap.flush() == b"tail without a break"
    assert cap.listed == 0


def test_a_page_past_the_cap_is_cut_to_it_without_a_cursor() -> None:
    cap = ToolCap()
    page = _page(MAX_TOOLS + 7)
    out = b"".join(cap.feed(page[i : i + 4096]) for i in range(0, len(page), 4096))
    message = json.loads(out)
    assert len(message["result"]["tools"]) == 5000
    assert message["result"]["tools"][-1] == {"name": "t4999"}
    assert "nextCursor" not in message["result"]
    assert (message["jsonrpc"], message["id"]) == ("2.0", 2)
    assert cap.listed == 5007


def test_a_page_at_the_cap_passes_as_it_came() -> None:
    cap = ToolCap()
    page = _page(MAX_TOOLS)
    assert cap.feed(page) == page
    assert cap.listed == 0
