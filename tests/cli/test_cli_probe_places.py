"""Where the payload goes and where it comes back, checked against the server's tools.

What only the tool list can tell (a path that leads nowhere in the schema, a setup step
calling a tool the server lacks, a payload place to choose among several) is one
sentence and exit 2 before any call; a calibration value that does not come back is
exit 2 naming --read and --read-tool. The server (tests/servers/mcp_hostile.py) lists
the tools each test gives it and writes down every call it gets; with its other flags,
the calibration call meets a tool that mangles, refuses or never answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _needs import need_module

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.mcp import edit_file_schema
from _support.servers import HOSTILE_MCP, called, listed_tool, probe_listing

READ_ONLY = {"readOnlyHint": True}
EDIT = listed_tool("edit", READ_ONLY, edit_file_schema(mode={"type": "string", "enum": ["a", "b"]}))


def _run(tmp_path: Path, *options: str, tools: Any = None) -> tuple[Any, list[str]]:
    need_module("mcp")
    calls = tmp_path / "calls"
    options = ("--tool", "edit", "--families", "quotes", "--max-requests", "3", *options)
    return probe_listing(tools or [EDIT], calls, *options), called(calls)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--param", "edits[0].old_text"], ["does not lead anywhere", "edits[0].oldText"]),
        (["--param", "body"], ["--param 'body' is not an argument", "path, edits, dryRun, mode"]),
        (["--param", "edits"], ["is array", "not text", "edits[0].newText"]),
        (["--param", "edits[0]"], ["is object", "not text"]),
        (
            [],
            [
                "3 free-form string parameters (path, edits[0].oldText, edits[0].newText)",
                "--param 'PATH'",
                '"{payload}" where it goes in --args {...}',
            ],
        ),
        (["--args", '{"path": "p"}'], ["2 free-form string parameters", "edits[0].newText"]),
        (["--param", "path", "--before", 'seed={"x": 1}'], ["setup step 1 calls 'seed'"]),
        (["--param", "path", "--read-tool", "get"], ["--read-tool 'get' is not offered"]),
    ],
)
def test_what_the_tool_list_rules_out_costs_no_call(
    tmp_path: Path, options: list[str], words: list[str]
) -> None:
    result, calls = _run(tmp_path, *options)
    assert result.returncode == 2, result.stderr
    line = one_sentence(result)
    for word in words:
        assert word in line
    assert calls == []


def test_the_one_free_form_place_left_is_taken_and_said(tmp_path: Path) -> None:
    args = '{"path": "p", "edits": [{"oldText": "x"}]}'
    result, calls = _run(tmp_path, "--args", args, "--max-requests", "5")
    assert result.returncode == 0, result.stderr
    found, located = result.stdout.splitlines()[:2]
    assert found.startswith(
        "payload argument: edits[0].newText (the only free-form string parameter of 'edit'"
    )
    # The server (--tools) answers the arguments as structured content.
    assert located.startswith("read back at: 'structured:edits[0].newText' (located")
    assert calls == ["edit"] * 5  # the three calibration calls and two payloads


def test_a_deep_param_without_args_fills_the_containers_from_the_schema(tmp_path: Path) -> None:
    # The server answers with the call's text, its first string argument: path, generated
    # plainly.
    result, calls = _run(
        tmp_path, "--param", "edits[0].oldText", "--read", "structured:edits[0].oldText"
    )
    assert result.returncode == 0, result.stdout
    assert calls == ["edit"] * 3


def test_a_marker_that_comes_back_changed_is_a_result_exit_3(tmp_path: Path) -> None:
    # The hostile server's --mangle drops the second code point of what it gets: the
    # change is the finding, the requests were sent, and the JSON says so.
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--families", "quotes", "--json", str(out), "--",
        *HOSTILE_MCP, "--mangle",
    )  # fmt: skip
    assert result.returncode == 3
    line = one_sentence(result)
    assert "the target changes even plain ASCII text: " in line
    assert "--read" in line
    document = json.loads(out.read_text())
    assert document["observations"] == []
    assert "the target changes even plain ASCII text: " in document["facts"]["warnings"][0]


def test_a_calibration_call_refused_is_exit_3(tmp_path: Path) -> None:
    result = fidelity("probe", "--mcp", "--families", "quotes", "--", *HOSTILE_MCP, "--reject")
    assert result.returncode == 3
    assert "the calibration call (the plain value 'fidelity-marker-" in one_sentence(result)


def test_a_calibration_call_never_answered_is_exit_3(tmp_path: Path) -> None:
    result = fidelity(
        "probe", "--mcp", "--timeout", "1", "--families", "quotes", "--", *HOSTILE_MCP, "--hang",
    )  # fmt: skip
    assert result.returncode == 3
    assert "in place of a payload) got no answer" in one_sentence(result)


def test_max_requests_counts_the_calibration_call_before_sending_it(tmp_path: Path) -> None:
    result, calls = _run(tmp_path, "--param", "path", "--max-requests", "3")
    assert result.returncode == 2
    assert "after the 3 of the calibration call" in one_sentence(result)
    assert calls == []


REJECT = listed_tool("reject", READ_ONLY, {"type": "object"})


def test_a_failing_setup_step_breaks_the_payload_and_is_never_retried(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result, calls = _run(
        tmp_path, "--param", "path", "--before", 'reject={"why": "{n}"}', "--read", "text",
        "--json", str(out), tools=[EDIT, REJECT],
    )  # fmt: skip
    assert result.returncode == 3
    assert "setup step 1 (reject) failed: refused" in one_sentence(result)
    (observation,) = json.loads(out.read_text())["observations"]
    assert observation["status"] == "broken"
    assert observation["error_type"] == "SetupStep"
    assert observation["error"] == "setup step 1 (reject) failed: refused"
    assert calls == ["reject"]  # once, and the payload's own tool was never called


def test_a_setup_step_failing_the_calibration_call_is_exit_3(tmp_path: Path) -> None:
    result, calls = _run(
        tmp_path, "--param", "path", "--before", 'reject={"why": "{n}"}', "--max-requests", "8",
        tools=[EDIT, REJECT],
    )  # fmt: skip
    assert result.returncode == 3
    line = one_sentence(result)
    assert "the calibration call (the plain value 'fidelity-marker-" in line
    assert "setup step 1 (reject) failed: refused" in line
    assert calls == ["reject"]


def test_dry_run_shows_the_steps_and_the_templates() -> None:
    result = fidelity(
        "probe", "--mcp", "--dry-run", "--tool", "edit_file", "--families", "quotes",
        "--before", 'write_file={"path": "/r/f{n}.txt", "content": "{payload}"}',
        "--args", '{"path": "/r/f{n}.txt", "edits": [{"oldText": "{payload}"}]}',
        "--read-tool", "read_text_file", "--read-args", '{"path": "/r/f{n}.txt"}',
        "--", "server-that-is-never-started",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()[1:6]
    assert lines == [
        "  target: MCP server over stdio command: server-that-is-never-started",
        '  before each payload, step 1: write_file {"path": "/r/f{n}.txt", "content": "{payload}"}',
        '  tool: edit_file   payload argument: where --args holds "{payload}"',
        '  arguments: {"path": "/r/f{n}.txt", "edits": [{"oldText": "{payload}"}]}',
        '  read back with tool: read_text_file {"path": "/r/f{n}.txt"}',
    ]
    assert "read: located by three calibration calls" in result.stdout
    assert "call(s) per payload" not in result.stdout  # no --max-requests: no budget to show
