"""``fidelity probe`` against hostile MCP servers: bounded replies, a bounded tool
listing, a bounded HTML report.

The servers are tests/servers/mcp_hostile.py (stdio) and mcp_http_hostile.py (Streamable
HTTP). Processes are checked by their pids, written by the server itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import HOSTILE_MCP

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]


def test_a_reply_past_max_reply_ends_its_call_broken_in_one_sentence(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--families", "quotes", "--read", "text",
        "--max-requests", "1", "--max-reply", "64KiB",
        "--json", str(out), "--mcp", "--", *HOSTILE_MCP, "--big-reply", "1000000",
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert result.stderr.count("\n") == 1
    assert "longer than the reply limit of 64 KiB" in result.stderr
    (observation,) = json.loads(out.read_text())["observations"]
    assert (observation["status"], observation["error_type"]) == ("broken", "ReplyTooLarge")


@pytest.mark.parametrize("value", ["12", "lots", "0MiB", "1.5MiB", "9" * 5000])
def test_a_bad_max_reply_is_a_usage_error(value: str) -> None:
    result = fidelity("probe", "--max-reply", value, "--mcp", "--", *HOSTILE_MCP)
    assert result.returncode == 2
    assert result.stderr.startswith(f"fidelity: --max-reply {value[:40]!r} is not a size")
    assert result.stderr.count("\n") == 1


def test_a_reply_nested_too_deeply_is_broken_without_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--families", "quotes", "--read", "text",
        "--max-requests", "2", "--timeout", "20",
        "--json", str(out), "--mcp", "--", *HOSTILE_MCP, "--deep-reply", "100000",
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    # A reply the client cannot parse is a protocol failure; every reply so: exit 3.
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        "fidelity: The target's reply to 2 of the 2 payloads sent could not be parsed"
    )
    observations = json.loads(out.read_text())["observations"]
    assert {o["status"] for o in observations} == {"broken"}
    assert all("nested too deeply" in o["error"] for o in observations)


def test_the_tool_listing_is_bounded(tmp_path: Path) -> None:
    result = fidelity("probe", "--list-tools", "--mcp", "--", *HOSTILE_MCP, "--many-tools", "1000")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1003 tools on ")
    assert lines[-2] == "  ... and 803 more tools, not shown."
    assert lines[-1].startswith("A tool is called without --yes only when annotated readOnlyHint")
    assert len(lines) <= 3 + 2 * 200
    assert max(len(line) for line in lines) <= 400
    assert "tool00196_" in result.stdout  # the 200th tool (after echo, store, ping_tool)
    assert "tool00197_" not in result.stdout
    assert "+18 more" in result.stdout  # 30 arguments, 12 shown


def test_the_html_report_shows_a_huge_value_in_part_with_its_size(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    result = fidelity(
        "probe", "--families", "quotes", "--read", "text",
        "--max-requests", "1", "--html", str(html),
        "--mcp", "--", *HOSTILE_MCP, "--big-reply", "3000000",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    page = html.read_text()
    assert "3000000 code points (3000000 bytes) in all: the first 20000 shown" in page
    assert len(page) < 200_000


def test_replies_larger_than_max_reply_in_a_row_are_said_so() -> None:
    # The target answered every call: too large is not "stopped answering".
    from fidelity._core.kinds import Status
    from fidelity._probe.observation import Observation
    from fidelity._run.breaker import Breaker, Stopped

    breaker = Breaker(timeout=5)
    breaker(Observation(sent="a", received="a", status=Status.PRESERVED))
    large = Observation(
        sent="b" * 5000,
        status=Status.BROKEN,
        error_type="ReplyTooLarge",
        error="the reply is longer than the reply limit of 4 KiB.",
    )
    breaker(large)
    breaker(large)
    with pytest.raises(Stopped) as stopped:
        breaker(large)
    assert str(stopped.value) == (
        "3 replies in a row were larger than --max-reply (the reply is longer than the "
        "reply limit of 4 KiB); nothing more was sent."
    )
