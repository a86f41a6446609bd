"""The destructive guard follows the MCP specification's defaults.

``readOnlyHint`` defaults to false and ``destructiveHint`` to true, so a tool is
called without ``--yes`` only when annotated ``readOnlyHint: true``; every tool the
run will call is checked before the first call, the reflector's helpers and the
setup steps included; a tool name listed twice is a protocol error. The server
(tests/servers/mcp_hostile.py, listing the tools each test gives it) writes down every
call it gets, so "refused" means no call at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import called, listed_tool, probe_listing

READ_ONLY = {"readOnlyHint": True}


def _run(tmp_path: Path, tools: list[dict[str, Any]], *options: str) -> tuple[Any, list[str]]:
    need_module("mcp")
    calls = tmp_path / "calls"
    options = ("--families", "quotes", "--max-requests", "6", "--read", "text", *options)
    return probe_listing(tools, calls, *options), called(calls)


@pytest.mark.parametrize(
    ("annotations", "reason"),
    [
        (None, "no annotations"),
        ({"readOnlyHint": False}, "annotated readOnlyHint: false"),
        ({"destructiveHint": False}, "no readOnlyHint"),  # readOnlyHint defaults to false
        ({"destructiveHint": True, "readOnlyHint": False}, "annotated destructiveHint: true"),
    ],
)
def test_a_tool_not_annotated_read_only_is_never_called_without_yes(
    tmp_path: Path, annotations: dict[str, Any] | None, reason: str
) -> None:
    result, calls = _run(tmp_path, [listed_tool("echo", annotations)])
    assert result.returncode == 2, result.stderr
    line = one_sentence(result)
    assert f"'echo' (payload tool; {reason})" in line
    assert "called without --yes only when the server annotates it readOnlyHint: true" in line
    assert "hints, not guarantees" in line
    assert calls == []
    consented, calls = _run(tmp_path, [listed_tool("echo", annotations)], "--yes")
    assert consented.returncode == 0, consented.stderr
    assert len(calls) == 6


def test_read_only_tools_are_called_without_yes(tmp_path: Path) -> None:
    result, calls = _run(tmp_path, [listed_tool("echo", READ_ONLY)])
    assert result.returncode == 0, result.stderr
    assert calls == ["echo"] * 6


def test_every_tool_of_the_run_is_checked_before_the_first_call(tmp_path: Path) -> None:
    tools = [
        listed_tool("echo", READ_ONLY),
        listed_tool("seed", {"destructiveHint": True}),
        listed_tool("fetch", None),
    ]
    result, calls = _run(
        tmp_path, tools, "--before", 'seed={"text": "x"}', "--read-tool", "fetch",
        "--read-args", '{"text": "y"}',
    )  # fmt: skip
    assert result.returncode == 2
    line = one_sentence(result)
    assert "tools 'seed' (setup step 1; annotated destructiveHint: true)" in line
    assert "'fetch' (read tool; no annotations)" in line
    assert calls == []


def test_the_reflectors_helper_tools_need_yes_too(tmp_path: Path) -> None:
    # A server shaped like the reference reflector: echo read-only, but reflect and emit
    # (which the probe calls on its own to split the directions) destructive.
    value = {"type": "object", "properties": {"value": {"type": "object"}}}
    tools = [
        listed_tool("echo", READ_ONLY),
        listed_tool("reflect", {"destructiveHint": True}),
        listed_tool("emit", {"destructiveHint": True}, value),
    ]
    result, calls = _run(tmp_path, tools)
    assert result.returncode == 2
    line = one_sentence(result)
    assert "'reflect' (reflector helper; annotated destructiveHint: true)" in line
    assert "'emit' (reflector helper" in line
    assert calls == []


def test_a_tool_name_listed_twice_is_a_protocol_error(tmp_path: Path) -> None:
    # The first destructive, the second read-only: which one a call reaches is unknown.
    tools = [listed_tool("echo", {"destructiveHint": True}), listed_tool("echo", READ_ONLY)]
    result, calls = _run(tmp_path, tools)
    assert result.returncode == 3
    assert "lists the tool name 'echo' more than once" in one_sentence(result)
    assert calls == []
    consented, calls = _run(tmp_path, tools, "--yes")
    assert consented.returncode == 3
    assert calls == []
    listing, _ = _run(tmp_path, tools, "--list-tools")
    assert listing.returncode == 3


def test_list_tools_shows_the_rule(tmp_path: Path) -> None:
    tools = [
        listed_tool("echo", READ_ONLY),
        listed_tool("store", None),
        listed_tool("edit", {"readOnlyHint": False}),
    ]
    result, calls = _run(tmp_path, tools, "--list-tools")
    assert result.returncode == 0, result.stderr
    assert "echo(text: string)  [read-only]" in result.stdout
    assert "store(text: string)  [needs --yes: no annotations]" in result.stdout
    assert "edit(text: string)  [needs --yes: readOnlyHint: false]" in result.stdout
    assert "without --yes only when annotated readOnlyHint: true" in result.stdout
    assert "hints, not guarantees" in result.stdout
    assert calls == []


def test_help_says_annotations_are_untrusted_hints() -> None:
    result = fidelity("probe", "--help")
    assert result.returncode == 0
    flat = " ".join(result.stdout.split())
    assert "--yes allow calling tools that are not annotated readOnlyHint: true" in flat
    assert "annotations are hints from an untrusted server, not guarantees" in flat
