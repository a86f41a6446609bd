"""``fidelity probe``: bad arguments, --dry-run and --list-tools, through the real command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import HOSTILE_MCP, listed_tool, probe_listing

from fidelity import FAMILIES, KINDS
from fidelity._cli import main

SERVER = HOSTILE_MCP


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["http://127.0.0.1:9/", "--allow", "quote.straighten,quote.curly"], list(KINDS)),
        (["http://127.0.0.1:9/", "--families", "quotes,emoji"], list(FAMILIES)),
        (["http://127.0.0.1:9/", "--send", "cookie:x"], ["json:PATH", "header:NAME", "body"]),
        (["http://127.0.0.1:9/", "--read", "xml:x"], ["json:PATH", "regex:PATTERN"]),
        (["--mcp", "--args", "{not json", "--", "server"], ["JSON object"]),
        (["--mcp", "--args", "[1, 2]", "--", "server"], ["JSON object"]),
        (["http://127.0.0.1:9/", "--tool", "edit"], ["--mcp", "mcp+http"]),
        (["ftp://example.org/"], ["http://", "mcp+http://", "--mcp"]),
        ([], ["http(s) URL", "--mcp"]),
        (["http://127.0.0.1:9/", "--rate", "fast"], ["0.5/s"]),
        (["http://127.0.0.1:9/", "--timeout", "0"], ["positive"]),
        (["--mcp", "--concurrency", "4", "--", "server"], ["HTTP targets"]),
        (["--mcp", "--send", "json:text", "--", "server"], ["--param"]),
        # Numbers are checked by the plan: one sentence, not argparse's usage dump.
        (["http://127.0.0.1:9/", "--seed", "x"], ["--seed 'x'", "integer"]),
        (["http://127.0.0.1:9/", "--examples", "-1"], ["--examples '-1'", "0 or more"]),
        (["http://127.0.0.1:9/", "--max-requests", "1.5"], ["--max-requests '1.5'"]),
        (["http://127.0.0.1:9/", "--timeout", "soon"], ["--timeout 'soon'", "seconds"]),
        (["http://127.0.0.1:9/", "--concurrency", "0"], ["--concurrency '0'", "at least 1"]),
        # Checked before the server is started, in the words of the command line.
        (["--mcp", "--read", "xml:x", "--", "server"], ["--read 'xml:x'", "armored:PATH"]),
        (["--mcp", "--read", "regex:(", "--", "server"], ["--read 'regex:('"]),
        (["http://127.0.0.1:9/", "--send", "path"], ["--send path", "{value}"]),
        (["http://127.0.0.1:9/\x1b[2J", "--timeout", "1"], ["the URL", "not a valid URL"]),
        # A URL that cannot be connected to is a usage error before anything is opened,
        # for MCP targets too (it was "could not open an MCP session", exit 3).
        (["http://127.0.0.1:99999/"], ["the URL", "port 99999 is not 1-65535"]),
        (["--mcp", "http://127.0.0.1:80x/mcp"], ["the target", "not a valid URL", "80x"]),
        (["--mcp", "http://127.0.0.1:70000/mcp"], ["the target", "port 70000"]),
        (["--mcp", "http://me:pw@127.0.0.1:0/mcp"], ["me:***@", "port 0"]),
        # Paths, placeholders and steps: checked before the server is started.
        (["--mcp", "--param", "edits[0", "--", "server"], ["--param 'edits[0' is not a path"]),
        (["--mcp", "--param", "[0].x", "--", "server"], ["must start with an argument name"]),
        (["--mcp", "--args", '{"x": "{nope}"}', "--", "server"], ["--args", "{nope}", "{n}"]),
        (["--mcp", "--args", '{"x": "a {payload}"}', "--", "server"], ["whole string value"]),
        (["--mcp", "--args", '{"x": "{"}', "--", "server"], ["lone '{'", "{{"]),
        (
            ["--mcp", "--read-args", '{"p": "{m}"}', "--read-tool", "r", "--", "server"],
            ["--read-args", "{m}"],
        ),
        (["--mcp", "--before", "git_add", "--", "server"], ["must be TOOL=JSON", "f{n}.txt"]),
        (["--mcp", "--before", "w={bad", "--", "server"], ["--before w=...", "not valid JSON"]),
        (["--mcp", "--before", "w=[1]", "--", "server"], ["JSON object"]),
        (["--mcp", "--before", 'w={"p": "}{"}', "--", "server"], ["step 1", "lone"]),
        (["--mcp", "--read", "json:a..b", "--", "server"], ["--read 'json:a..b'", "path"]),
        (["--mcp", "--read-url", "http://h/x", "--", "server"], ["--read-url", "--read-tool"]),
        (["http://127.0.0.1:9/", "--before", "w={}"], ["--before", "MCP targets only"]),
        (["http://127.0.0.1:9/", "--read-url", "http://h/{id}"], ["needs --id-from"]),
        (["http://127.0.0.1:9/", "--id-from", "json:id"], ["add --read-url"]),
        (
            ["http://127.0.0.1:9/", "--read-url", "http://h/{id}", "--id-from", "body"],
            ["json:PATH, header:NAME or regex:PATTERN"],
        ),
    ],
)
def test_bad_arguments_are_one_sentence_and_exit_2(
    args: list[str], names: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # In process (the same entry point as the installed command): nothing is sent.
    assert main(["probe", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fidelity: ")
    for name in names:
        assert name in lines[0]


def test_bad_arguments_through_the_installed_command() -> None:
    result = fidelity("probe", "http://127.0.0.1:9/", "--allow", "quote.curly")
    assert result.returncode == 2
    assert "quote.straighten" in one_sentence(result)
    assert result.stdout == ""


def test_unknown_tool_names_the_servers_tools() -> None:
    result = fidelity("probe", "--mcp", "--tool", "edit", "--", *SERVER)
    assert result.returncode == 2
    line = one_sentence(result)
    assert line.startswith("fidelity: --tool 'edit' ")  # the option, not the API's tool=
    for tool in ("echo", "ping_tool", "store"):
        assert tool in line
    unknown_param = fidelity("probe", "--mcp", "--param", "body", "--", *SERVER)
    assert unknown_param.returncode == 2
    assert one_sentence(unknown_param).startswith("fidelity: --param 'body' ")


def test_destructive_tool_needs_yes(tmp_path: Path) -> None:
    args = json.dumps({"path": str(tmp_path / "x")})
    refused = fidelity(
        "probe", "--mcp", "--tool", "store", "--param", "content", "--args", args,
        "--families", "quotes", "--max-requests", "2", "--read", "text", "--", *SERVER,
    )  # fmt: skip
    assert refused.returncode == 2
    line = one_sentence(refused)
    assert "'store' (payload tool; annotated destructiveHint: true)" in line
    assert "without --yes only when the server annotates it readOnlyHint: true" in line
    assert "pass --yes to proceed" in line
    assert not (tmp_path / "x").exists()
    accepted = fidelity(
        "probe", "--mcp", "--tool", "store", "--param", "content", "--args", args,
        "--families", "quotes", "--max-requests", "2", "--read", "text", "--yes",
        "--", *SERVER,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
    assert "2 payloads: 2 preserved" in accepted.stdout


def test_a_destructive_read_tool_needs_yes_too(tmp_path: Path) -> None:
    read_args = json.dumps({"path": str(tmp_path / "x"), "content": "stored"})
    options = ["--read-tool", "store", "--read-args", read_args, "--read", "text"]
    options += ["--families", "quotes"]
    refused = fidelity("probe", "--mcp", *options, "--max-requests", "4", "--", *SERVER)
    assert refused.returncode == 2
    assert one_sentence(refused) == (
        "fidelity: tool 'store' (read tool; annotated destructiveHint: true) may change or "
        "delete data: a tool is called without --yes only when the server annotates it "
        "readOnlyHint: true (annotations are the server's hints, not guarantees); point the "
        "run at disposable data and pass --yes to proceed."
    )
    accepted = fidelity("probe", "--mcp", *options, "--max-requests", "4", "--yes", "--", *SERVER)
    # Past the guard: store answers its fixed content, a rewrite of every payload.
    assert accepted.returncode == 1, accepted.stderr
    assert "2 payloads: 2 transformed" in accepted.stdout


def test_list_tools_shows_arguments_and_annotations() -> None:
    result = fidelity("probe", "--mcp", "--list-tools", "--", *SERVER)
    assert result.returncode == 0, result.stderr
    assert "3 tools" in result.stdout
    assert "echo(text: string)  [read-only]" in result.stdout
    assert (
        "store(path: string, content: string)  [needs --yes: destructiveHint: true]"
        in result.stdout
    )
    assert "ping_tool()  [read-only]" in result.stdout
    assert "called without --yes only when annotated readOnlyHint: true" in result.stdout


def test_dry_run_sends_nothing_and_shows_payloads_safely(tmp_path: Path) -> None:
    # The "server" would create a file if it were ever started.
    marker = tmp_path / "started"
    command = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    result = fidelity(
        "probe", "--mcp", "--dry-run", "--families", "bidi,control", "--max-requests", "9",
        "--", *command,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert "dry run: nothing is sent." in result.stdout
    # Without --read, the calibration calls (three payloads' cost) come first.
    assert "6 payloads (--max-requests 9, 1 call(s) per payload, 3 for the calibration)" in (
        result.stdout
    )
    assert "read: located by three calibration calls" in result.stdout
    # A budget smaller than the families asked for samples each of them in turn.
    assert result.stdout.count("\n  bidi/") == 3
    assert result.stdout.count("\n  control/") == 3
    assert "[U+202E RIGHT-TO-LEFT OVERRIDE]" in result.stdout
    assert "\u202e" not in result.stdout


def test_unreachable_target_is_exit_3_in_one_sentence(tmp_path: Path) -> None:
    result = fidelity(
        "probe", "http://127.0.0.1:9/", "--families", "quotes", "--timeout", "2",
        "--json", str(tmp_path / "r.json"), "--read", "json:text",
    )  # fmt: skip
    assert result.returncode == 3
    assert "could not connect" in one_sentence(result)
    card = json.loads((tmp_path / "r.json").read_text())
    assert card["facts"]["complete"] is False
    assert [o["status"] for o in card["observations"]] == ["broken"]


def test_missing_stdio_command_is_exit_3() -> None:
    result = fidelity("probe", "--mcp", "--", str(Path("/nonexistent/server")))
    assert result.returncode == 3
    one_sentence(result)


@pytest.mark.parametrize(
    "server",
    [
        # Not MCP at all: a line of text, then the end of the stream.
        ["-c", "print('hello, I am not an MCP server')"],
        # An HTTP-looking answer with line breaks in it.
        ["-c", "print('HTTP/1.1 200 OK\\r\\n\\r\\n<html>\\n</html>')"],
    ],
)
def test_a_server_that_is_not_mcp_is_one_bounded_line(server: list[str]) -> None:
    result = fidelity("probe", "--mcp", "--timeout", "2", "--", sys.executable, *server)
    assert result.returncode == 3
    line = one_sentence(result)
    # The SDK's multi-line validation report is folded, not shown as line-feed badges.
    assert "U+000A" not in line
    assert len(line) <= len("fidelity: ") + 300


def test_a_server_that_dies_at_start_ends_the_line_with_its_last_stderr_line() -> None:
    # A traceback ends with its error: that last line is what the user needs, so the
    # bound of the sentence must not cut it off (mcp-server-sqlite dies so with mcp 2).
    script = (
        "import sys\n"
        "for i in range(40):\n"
        "    sys.stderr.write(f'  File \"/srv/app/m{i}.py\", line {i}, in h{i}\\n    f{i}()\\n')\n"
        "sys.stderr.write(\"AttributeError: 'Server' object has no attribute \"\n"
        "                 \"'list_resources'\\n\")\n"
        "sys.exit(1)\n"
    )
    result = fidelity(
        "probe", "--mcp", "--list-tools", "--timeout", "5", "--", sys.executable, "-c", script
    )
    assert result.returncode == 3
    line = one_sentence(result)
    assert line.endswith("| AttributeError: 'Server' object has no attribute 'list_resources')."), (
        line
    )
    assert "server stderr: ..." in line  # the start of the traceback left out, and said


def test_list_tools_names_array_and_union_types(tmp_path: Path) -> None:
    # server-redis's delete takes a key or a list of keys (oneOf); git_log's nullable
    # strings are anyOf with null; an argument without a type is any.
    schema = {
        "type": "object",
        "properties": {
            "key": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "since": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "edits": {"type": "array", "items": {"type": "object"}},
            "extra": {},
        },
        "required": ["key"],
    }
    tool = listed_tool("delete", {"readOnlyHint": True}, schema)
    result = probe_listing([tool], tmp_path / "calls", "--list-tools")
    assert result.returncode == 0, result.stderr
    assert (
        "delete(key: string|string[], since?: string|null, edits?: object[], extra?: any)"
        "  [read-only]"
    ) in result.stdout
