"""Safety round 4, hostile MCP servers (issue 44, rows M2 and X3): a listing of any size
within the reply limit costs bounded time and memory, and no process a server started
outlives the run.

Every run is fenced (:func:`~_support.bounded.fidelity_bounded`: an address-space limit
and a timeout), so a regression fails here at once instead of hanging the suite.
"""

from __future__ import annotations

from _support.bounded import fidelity_bounded
from _support.servers import HOSTILE_MCP


def test_m2_the_tool_cap_applies_within_one_tools_list_page() -> None:
    # One page of 60,000 tools (about 3 MiB, within the 8 MiB reply limit): the SDK
    # would validate every one (25 s and 280 MB here) before the cap across pages.
    result = fidelity_bounded(
        "probe", "--list-tools", "--mcp", "--", *HOSTILE_MCP, "--tiny-tools", "60000",
        timeout=90,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("5000 tools on ")
    assert lines[1] == (
        "  the server lists 60003 tools, more than the 5000 a run reads: only the first "
        "5000 were read."
    )
    assert "  ... and 4800 more tools, not shown." in lines


def test_m2_a_page_within_the_cap_is_read_whole() -> None:
    result = fidelity_bounded(
        "probe", "--list-tools", "--mcp", "--", *HOSTILE_MCP, "--tiny-tools", "4997", timeout=90
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("5000 tools on ")
    assert "more than the 5000 a run reads" not in result.stdout
