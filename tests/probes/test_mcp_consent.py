"""The consent rule on its own (probes._mcp.tools, probes._mcp.calls.check_consent).

The MCP specification's defaults: ``readOnlyHint`` false, ``destructiveHint`` true. A
tool is called without consent only when the server annotates it ``readOnlyHint:
true``, the JSON boolean: a server's ``1`` or ``"true"`` is not that. The probe and CLI
tests show the rule against servers that count their calls; these pin its edges.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _support.servers import HOSTILE_MCP, calls_made

import probes
from fidelity import Status
from fidelity._core.errors import TargetError
from probes._mcp.calls import check_consent
from probes._mcp.lifecycle import ListingChanged
from probes._mcp.tools import DestructiveToolRefused, McpTool, consent_reason, tool_records


def _tool(name: str = "t", **annotations: Any) -> McpTool:
    return McpTool(name=name, annotations=annotations)


@pytest.mark.parametrize(
    ("annotations", "read_only", "destructive", "reason"),
    [
        ({}, False, True, "no annotations"),
        ({"readOnlyHint": True}, True, False, ""),
        ({"readOnlyHint": True, "destructiveHint": True}, True, False, ""),
        ({"readOnlyHint": False}, False, True, "readOnlyHint: false"),
        ({"destructiveHint": False}, False, False, "no readOnlyHint"),
        ({"destructiveHint": True}, False, True, "destructiveHint: true"),
        ({"idempotentHint": True}, False, True, "no readOnlyHint"),
        # Not the JSON boolean true: no consent given, whatever Python makes of it.
        ({"readOnlyHint": 1}, False, True, "readOnlyHint: 1"),
        ({"readOnlyHint": "true"}, False, True, "readOnlyHint: 'true'"),
        ({"destructiveHint": 0}, False, True, "no readOnlyHint"),
        ({"destructiveHint": 1}, False, True, "no readOnlyHint"),
    ],
)
def test_only_read_only_true_needs_no_consent(
    annotations: dict[str, Any], read_only: bool, destructive: bool, reason: str
) -> None:
    tool = _tool(**annotations)
    assert tool.read_only is read_only
    assert tool.destructive is destructive
    assert consent_reason(tool) == reason


def test_every_tool_the_run_calls_is_checked_and_the_first_is_named() -> None:
    calls = (
        (_tool("seed"), "setup step 1"),
        (_tool("look", readOnlyHint=True), "payload tool"),
        (_tool("erase", destructiveHint=True), "read tool"),
        (_tool("tidy", readOnlyHint=False), "reflector helper"),
    )
    with pytest.raises(DestructiveToolRefused) as refused:
        check_consent(calls, False)
    assert refused.value.tool == "seed"  # the first in the order of the run
    assert [(r.tool, r.role, r.reason) for r in refused.value.refused] == [
        ("seed", "setup step 1", "no annotations"),
        ("erase", "read tool", "destructiveHint: true"),
        ("tidy", "reflector helper", "readOnlyHint: false"),
    ]
    assert str(refused.value).startswith(
        "tools 'seed' (setup step 1; no annotations), 'erase' (read tool; "
        "annotated destructiveHint: true) and 'tidy' (reflector helper; annotated "
        "readOnlyHint: false) may change or delete data: a tool is called without "
        "allow_destructive=True only when the server annotates it readOnlyHint: true"
    )
    check_consent(calls, True)  # consent given: nothing raised
    check_consent(calls[1:2], False)  # read-only alone: nothing raised


def test_one_tool_in_two_roles_is_named_once_with_both() -> None:
    store = _tool("store")
    with pytest.raises(DestructiveToolRefused) as refused:
        check_consent(((store, "payload tool"), (store, "read tool")), False)
    assert [(r.tool, r.role) for r in refused.value.refused] == [
        ("store", "payload tool, read tool")
    ]
    assert refused.value.advice("--yes").startswith(
        "tool 'store' (payload tool, read tool; no annotations) may change"
    )


def test_a_name_listed_twice_is_a_protocol_error_naming_at_most_five() -> None:
    listed = [{"name": n} for n in "abcdef"] * 2 + [{"name": "once"}]
    with pytest.raises(TargetError, match="lists the tool names 'a', 'b', 'c', 'd', 'e' more"):
        tool_records(listed)
    with pytest.raises(TargetError, match="lists the tool names 'x', 'y' more than once"):
        tool_records([{"name": "x"}, {"name": "y"}] * 2)
    with pytest.raises(TargetError, match="lists the tool name 'x' more than once"):
        tool_records([{"name": "x"}, {"name": "y"}, {"name": "x"}])
    assert [t.name for t in tool_records([{"name": "x"}, {"name": "y"}])] == ["x", "y"]


@pytest.mark.parametrize(
    ("later", "allowed", "change"),
    [
        ("destructive", False, "is now annotated destructiveHint: true"),
        ("none", False, "now has no annotations"),
        ("absent", False, "is no longer listed"),
        ("absent", True, "is no longer listed"),
    ],
)
def test_a_new_session_whose_listing_breaks_the_plan_calls_nothing_more(
    tmp_path: Path, later: str, allowed: bool, change: str
) -> None:
    """The server crashes on its second call; its next start lists ``echo`` otherwise.
    The new session's listing is checked against the plan before any call: every later
    observation raises the sentence, and the server counts no call after the crash.
    With consent (allow_destructive), only a tool that is gone stops the run."""
    calls = tmp_path / "calls.txt"
    server = [
        *HOSTILE_MCP, "--crash-after", "1", "--calls", str(calls),
        "--starts", str(tmp_path / "starts.txt"), "--later-echo", later,
    ]  # fmt: skip
    with probes.mcp(server, timeout=5, allow_destructive=allowed) as probe:
        assert probe.observe("a").status is Status.PRESERVED
        assert probe.observe("b").status is Status.BROKEN  # the crash
        for text in ("c", "d"):
            with pytest.raises(ListingChanged, match=f"tool 'echo' \\(payload tool\\) {change}"):
                probe.observe(text)
    assert [name for name, _ in calls_made(calls)] == ["echo", "echo"]


def test_a_new_session_with_the_same_listing_goes_on(tmp_path: Path) -> None:
    calls = tmp_path / "calls.txt"
    server = [*HOSTILE_MCP, "--crash-after", "1", "--calls", str(calls)]
    with probes.mcp(server, timeout=5) as probe:
        statuses = [probe.observe(text).status for text in "abc"]
    assert statuses == [Status.PRESERVED, Status.BROKEN, Status.PRESERVED]
    assert len(calls_made(calls)) == 3
