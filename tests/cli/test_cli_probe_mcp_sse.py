"""MCP over the legacy HTTP+SSE transport: ``fidelity probe --mcp URL`` falls back to it
when the URL answers the Streamable HTTP handshake with a 4xx (as the MCP spec's
backwards compatibility says), and ``--transport sse`` goes straight to it.

Against two real SSE servers: @modelcontextprotocol/server-everything started in its
``sse`` mode (Express, ``GET /sse`` and ``POST /message``; a POST to ``/sse`` is 404)
and the Python SDK's SSE app (``tests/servers/mcp_sse.py``; a POST to ``/sse`` is 405).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import npm_server
from _support.servers import serving

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def everything_sse() -> Iterator[str]:
    """server-everything in SSE mode on a free port; yields its ``/sse`` URL."""
    from probes._process import stop_process

    command = npm_server("everything")
    with socket.socket() as probe_port:
        probe_port.bind(("127.0.0.1", 0))
        port = probe_port.getsockname()[1]
    proc = subprocess.Popen(
        [command, "sse"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PORT": str(port)},
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        assert proc.poll() is None, "server-everything did not start in SSE mode"
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        stop_process(proc)


@pytest.fixture(scope="module")
def python_sse() -> Iterator[str]:
    need_module("mcp")
    with serving("mcp_sse.py") as url:
        yield url


def _run(tmp_path: Path, *options: str) -> tuple[int, dict[str, object], str]:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", *options, "--families", "quotes", "--quiet", "--json", str(out)
    )
    assert "Traceback" not in result.stderr, result.stderr
    document = json.loads(out.read_text()) if out.exists() else {}
    return result.returncode, document, result.stdout + result.stderr


def _statuses(document: dict[str, object]) -> list[str]:
    observations = document["observations"]
    assert isinstance(observations, list)
    return [o["status"] for o in observations]


def test_the_reference_server_in_sse_mode_is_reached_by_falling_back(
    everything_sse: str, tmp_path: Path
) -> None:
    code, document, output = _run(tmp_path, everything_sse)
    assert code == 0, output
    setup = document["facts"]["setup"]  # type: ignore[index]
    assert setup["transport"] == "mcp sse"
    assert setup["tool"] == "echo"
    assert setup["param"] == "message"
    assert _statuses(document) == ["preserved"] * 17
    assert "17 payloads: 17 preserved." in output


def test_transport_sse_goes_straight_to_the_reference_server(
    everything_sse: str, tmp_path: Path
) -> None:
    code, document, output = _run(tmp_path, "--transport", "sse", everything_sse)
    assert code == 0, output
    assert document["facts"]["setup"]["transport"] == "mcp sse"  # type: ignore[index]
    assert _statuses(document) == ["preserved"] * 17


@pytest.mark.parametrize("transport", [[], ["--transport", "sse"]])
def test_the_python_sdk_sse_server(python_sse: str, tmp_path: Path, transport: list[str]) -> None:
    code, document, output = _run(tmp_path, *transport, "--read", "text", python_sse)
    assert code == 0, output
    assert document["facts"]["setup"]["transport"] == "mcp sse"  # type: ignore[index]
    assert document["facts"]["setup"]["param"] == "text"  # type: ignore[index]
    assert _statuses(document) == ["preserved"] * 17


def test_list_tools_over_sse(python_sse: str) -> None:
    result = fidelity("probe", "--mcp", "--list-tools", "--transport", "sse", python_sse)
    assert result.returncode == 0, result.stderr
    assert "echo" in result.stdout


def test_transport_sse_against_a_streamable_http_server_fails_in_one_sentence(
    tmp_path: Path,
) -> None:
    need_module("mcp")
    with serving("mcp_http_auth.py", "s3cret-token-value") as url:
        result = fidelity(
            "probe", "--mcp", "--transport", "sse", "--header",
            "Authorization: Bearer s3cret-token-value", url, "--quiet",
        )  # fmt: skip
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert "could not open an MCP session" in result.stderr
    assert "s3cret-token-value" not in result.stderr


def test_a_401_is_not_taken_for_a_legacy_server(tmp_path: Path) -> None:
    """Credentials refused are the same on either transport: no SSE attempt, the 401
    reported as it came."""
    need_module("mcp")
    with serving("mcp_http_auth.py", "s3cret-token-value") as url:
        result = fidelity("probe", "--mcp", url, "--quiet")
    assert result.returncode == 3
    assert "legacy SSE" not in result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--transport", "sse", "http://127.0.0.1:9/x"], "--transport sse chooses how an MCP"),
        (["--mcp", "--transport", "sse", "--", "true"], "--transport sse chooses how an MCP"),
        (
            ["--mcp", "--transport", "sse", "--clients", "typescript", "http://127.0.0.1:9/"],
            "--transport sse goes through the Python MCP clients",
        ),
    ],
)
def test_transport_misuse_is_one_sentence(args: list[str], words: str) -> None:
    result = fidelity("probe", *args)
    assert result.returncode == 2
    assert words in result.stderr
