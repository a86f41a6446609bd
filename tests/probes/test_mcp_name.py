"""MCP probes are named after the server a user would recognise, stably across machines
and runs: no interpreter, no absolute path, no temporary directory, no loopback port."""

from __future__ import annotations

import sys

import pytest
from _needs import need_module
from _support.servers import QUOTE_EDIT_MCP

import probes
from probes._mcp.name import target_label


@pytest.mark.parametrize(
    ("target", "label"),
    [
        ([sys.executable, "/home/me/proj/tests/servers/mcp_quote_edit.py"], "mcp_quote_edit.py"),
        (["python3.12", "-X", "utf8", "-u", "srv/app.py", "--port", "1"], "app.py"),
        (["python", "-m", "mcp_server_fetch", "--x"], "mcp_server_fetch"),
        (["python", "-c", "import srv; srv.run()"], "python -c"),
        (["npx", "-y", "@scope/server-everything@1.2"], "@scope/server-everything@1.2"),
        (["uvx", "mcp-server-time"], "mcp-server-time"),
        (["uv", "run", "--with", "mcp", "server.py"], "server.py"),
        (["env", "DEBUG=1", "node", "build/server.mjs"], "server.mjs"),
        (
            ["node", "/opt/node_modules/@scope/server-filesystem/dist/index.js", "/tmp/tmpx"],
            "server-filesystem/dist/index.js",
        ),
        (["node", "/tmp/tmpab12cd/index.js"], "index.js"),  # never a temporary directory
        (["/usr/local/bin/mcp-server-git", "--repository", "/srv/repo"], "mcp-server-git"),
        (["C:\\Tools\\python.exe", "C:\\srv\\tool_server.py"], "tool_server.py"),
        (["sleep", "100"], "sleep"),
        (["python"], "python"),
    ],
)  # fmt: skip
def test_stdio_targets_are_named_after_their_server(target: list[str], label: str) -> None:
    assert target_label(target) == label


@pytest.mark.parametrize(
    ("url", "label"),
    [
        ("http://127.0.0.1:40171/mcp", "http://127.0.0.1:<port>/mcp"),
        ("http://localhost:8000/mcp/", "http://localhost:<port>/mcp/"),
        ("http://[::1]:9/mcp", "http://[::1]:<port>/mcp"),
        ("https://mcp.example.com:8443/mcp", "https://mcp.example.com:8443/mcp"),  # a real port
        ("https://me:secret@example.com/mcp?token=abc#x", "https://example.com/mcp"),
    ],
)
def test_urls_lose_loopback_ports_credentials_and_queries(url: str, label: str) -> None:
    assert target_label(url) == label


def test_names_are_terminal_safe() -> None:
    label = target_label(["python", "evil\u202e\x1b[2J.py"])
    assert "\u202e" not in label
    assert "\x1b" not in label
    assert "[U+202E RIGHT-TO-LEFT OVERRIDE]" in label


def test_probe_name_names_the_server_tool_and_param() -> None:
    need_module("mcp")
    target = QUOTE_EDIT_MCP
    probe = probes.mcp(target, tool="edit", param="old_string")
    assert probe.name == "mcp stdio mcp_quote_edit.py edit.old_string"
    url = probes.mcp("http://127.0.0.1:51234/mcp", param="text")
    assert url.name == "mcp http http://127.0.0.1:<port>/mcp echo.text"
    # Without param the place is read from the tool's schema once connected.
    unplaced = probes.mcp("http://127.0.0.1:51234/mcp")
    assert unplaced.name == "mcp http http://127.0.0.1:<port>/mcp echo"


def test_a_checkout_under_a_temporary_directory_names_the_package_the_same() -> None:
    from probes._mcp.name import target_label

    tail = "tests/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
    here = target_label(["node", f"/home/me/param-fidelity/{tail}", "/srv/root"])
    there = target_label(["node", f"/tmp/ci/{tail}", "/tmp/root"])
    assert here == there
    assert "server-filesystem/dist/index.js" in here
