"""Safety round 4, hostile MCP servers (issue 44, rows M2 and X3): a listing of any size
within the reply limit costs bounded time and memory, and no process a server started
outlives the run.

Every run is fenced (:func:`~_support.bounded.fidelity_bounded`: an address-space limit
and a timeout), so a regression fails here at once instead of hanging the suite.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from _support.bounded import fidelity_bounded
from _support.cli import start, stop
from _support.processes import gone, wait_for
from _support.servers import HOSTILE_MCP, serving


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


@pytest.mark.parametrize("sse", [False, True], ids=["json-body", "event-stream"])
def test_m2_the_tool_cap_applies_within_one_page_over_streamable_http(sse: bool) -> None:
    words = ["--tiny-tools", "60000", *(["--sse"] if sse else [])]
    with serving("mcp_http_hostile.py", *words) as url:
        result = fidelity_bounded("probe", "--list-tools", "--mcp", url, timeout=90)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("5000 tools on ")
    assert lines[1] == (
        "  the server lists 60001 tools, more than the 5000 a run reads: only the first "
        "5000 were read."
    )


def test_m2_a_page_within_the_cap_is_read_whole() -> None:
    result = fidelity_bounded(
        "probe", "--list-tools", "--mcp", "--", *HOSTILE_MCP, "--tiny-tools", "4997", timeout=90
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("5000 tools on ")
    assert "more than the 5000 a run reads" not in result.stdout


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandbox", "no-sandbox"])
def test_x3_a_daemon_a_server_left_behind_ends_with_the_run(tmp_path: Path, sandbox: bool) -> None:
    pid_file = tmp_path / "daemon.pid"
    words = ["--sandbox"] if sandbox else []
    result = fidelity_bounded(
        "probe", "--mcp", *words, "--max-requests", "5", "--",
        *HOSTILE_MCP, "--daemon", str(pid_file), timeout=90,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert wait_for(pid_file.exists, bound=10), "the server left no daemon"
    daemon = int(pid_file.read_text())
    assert gone([daemon], bound=20), f"the daemon {daemon} outlived the run"


def test_x3_a_signal_ends_the_daemon_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    command = start(
        "probe", "--mcp", "--sandbox", "--timeout", "60", "--",
        *HOSTILE_MCP, "--daemon", str(pid_file), "--hang",
    )  # fmt: skip
    appeared = wait_for(pid_file.exists, bound=60)
    returncode, stderr = stop(command, signal.SIGTERM)
    assert appeared, "the server left no daemon"
    daemon = int(pid_file.read_text())
    assert returncode == 128 + signal.SIGTERM, stderr
    assert gone([daemon], bound=20), f"the daemon {daemon} outlived the run"
