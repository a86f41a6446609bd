"""``probes.mcp_module("module:object")``: a Python server object, spawned over real stdio."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _support.servers import SERVERS

import probes
from fidelity import Status, UsageError

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

#: A low-level SDK server: echo(text) answers the text (not an MCPServer object).
LOWLEVEL = """
from mcp.server.lowlevel import Server
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    read_only = ToolAnnotations(read_only_hint=True)
    return ListToolsResult(tools=[Tool(name="echo", input_schema=schema, annotations=read_only)])

async def call_tool(ctx, params):
    return CallToolResult(content=[TextContent(type="text", text=params.arguments["text"])])

server = Server("lowlevel-echo", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_an_mcpserver_object_by_import_path_finds_the_headline_bug() -> None:
    probe = probes.mcp_module(
        "mcp_quote_edit:server",
        tool="edit",
        param="old_string",
        args={"path": "doc.txt", "new_string": "x"},
        read="armored:searched",
        allow_destructive=True,
        cwd=SERVERS,
    )
    with probe:
        assert probe.name.startswith(
            "mcp stdio mcp_quote_edit:server edit.old_string (read armored:searched, args#"
        )
        curly = probe.observe("say \u201chi\u201d")
        plain = probe.observe("plain")
    assert curly.status is Status.TRANSFORMED
    assert curly.kinds == {"quote.straighten"}
    assert plain.status is Status.PRESERVED
    # The server ran in its own process over stdio, not in this one.
    assert "mcp_quote_edit" not in sys.modules


def test_a_lowlevel_server_by_import_path(tmp_path: Path) -> None:
    (tmp_path / "lowserver.py").write_text(LOWLEVEL, encoding="utf-8")
    with probes.mcp_module("lowserver:server", cwd=tmp_path, read="text") as probe:
        observed = probe.observe("caf\u00e9\r\n")
    assert probe.name == "mcp stdio lowserver:server echo.text"
    assert observed.status is Status.PRESERVED


def test_a_tests_package_installed_elsewhere_is_named_not_the_directory(
    tmp_path: Path,
) -> None:
    # Some distributions put a top-level ``tests`` package into site-packages; a
    # repository whose tests/ has no __init__.py then cannot import tests.fidelity_app
    # from its own root, and "run from the directory that holds it" is wrong advice.
    installed = tmp_path / "site"
    (installed / "tests").mkdir(parents=True)
    (installed / "tests" / "__init__.py").write_text("", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "fidelity_app.py").write_text("app = None\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "probes._mcp.serve_object", "tests.fidelity_app:app"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(installed)},
        check=False,
    )
    assert done.returncode == 2
    site = (installed / "tests").resolve()
    assert done.stderr == (
        "fidelity: cannot import 'tests.fidelity_app' (No module named 'tests.fidelity_app'): "
        f"'tests' was imported from {site}, not from {repo.resolve()}: an installed package "
        "takes the name; add an __init__.py to tests/ here, so that this directory's "
        "'tests' wins.\n"
    )


def test_a_bad_spec_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="name the server object as 'MODULE:ATTRIBUTE'"):
        probes.mcp_module("no_colon_here")
    runner = [sys.executable, "-m", "probes._mcp.serve_object"]
    for spec, sentence in [
        ("missing_mod:app", "cannot import 'missing_mod'"),
        ("json:no_such", "'json' has no attribute 'no_such'"),
        ("json:__name__", "is a str, not an MCP server"),
    ]:
        done = subprocess.run(
            [*runner, spec], capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False
        )
        assert done.returncode == 2
        assert sentence in done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
