"""``fidelity probe --rate``: the pace measured where it matters, at the server.

Real servers note when each request arrives, by their own clock: the HTTP test server
(``counted``) and the hostile MCP stdio server (``--arrivals``). N requests sent at
``--rate R`` are spaced at least 1/R apart when they leave, so they span at least
(N-1)/R at the server (``assert_paced``: a lower bound only).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import HOSTILE_MCP, assert_paced, http_server

RATE = 8.0
SLOW = 2.0


@pytest.mark.parametrize("concurrency", [1, 4])
def test_http_requests_are_paced(concurrency: int) -> None:
    need_module("starlette")
    import httpx

    with http_server("counted") as url:
        result = fidelity(
            "probe", url, "--families", "quotes", "--max-requests", "14", "--rate", f"{RATE}/s",
            "--concurrency", str(concurrency), "--quiet",
        )  # fmt: skip
        arrivals = httpx.get(url + "_count", timeout=10).json()["arrivals"]
    assert result.returncode == 1, result.stderr  # the server straightens quotes
    assert_paced(arrivals, RATE)


def test_mcp_tool_calls_are_paced(tmp_path: Path) -> None:
    need_module("mcp")
    log = tmp_path / "arrivals.txt"
    result = fidelity(
        "probe", "--families", "quotes", "--read", "text", "--max-requests", "7",
        "--rate", str(RATE), "--quiet",
        "--mcp", "--", *HOSTILE_MCP, "--arrivals", str(log),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("7 payloads: 7 preserved;"), result.stdout
    assert_paced([float(line) for line in log.read_text().split()], RATE)


def test_the_calibration_call_is_paced_too(tmp_path: Path) -> None:
    # Without --read, three calibration calls locate the read-back before the payloads:
    # they are calls like the others, paced among themselves, and the first payload
    # waits its interval after the last of them.
    need_module("mcp")
    log = tmp_path / "arrivals.txt"
    result = fidelity(
        "probe", "--families", "quotes", "--max-requests", "7", "--rate", str(SLOW),
        "--quiet", "--mcp", "--", *HOSTILE_MCP, "--arrivals", str(log),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    arrivals = [float(line) for line in log.read_text().split()]
    assert len(arrivals) == 7  # three calibration calls and four payloads
    assert result.stdout.splitlines()[1].startswith("4 payloads: 4 preserved;"), result.stdout
    assert_paced(arrivals, SLOW)
    # The calibration calls and the first payload are paced too (at a pace slower than
    # a call takes on a loaded machine, so the difference shows): unpaced, the three
    # calibration calls would follow each other at once.
    assert_paced(arrivals[:5], SLOW)
