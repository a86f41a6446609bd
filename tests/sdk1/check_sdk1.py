"""The plugin in a project pinned to the MCP SDK 1.x (run by .ci/run in a venv with
``mcp<2``; not collected by the main suite): the SDK stays 1.x, and the fixture finds
the notes server's rewrite by module (with its setup hook and the test's environment)
by command (in a sandbox) and over Streamable HTTP."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

import probes
from fidelity import FidelityError

PLAN = {
    "tool": "save_note",
    "param": "body",
    "args": {"key": "k{n}"},
    "read_tool": "read_note",
    "read_args": {"key": "k{n}"},
    "allow_destructive": True,
}
REWRITE = r"rewrote payloads: newline\.crlf_to_lf \(not allowed\)"


def test_the_project_keeps_its_sdk() -> None:
    assert version("mcp").split(".")[0] == "1"
    with pytest.raises(ImportError):
        from mcp import Client  # noqa: F401 (2.x only)


def test_by_module_with_setup_and_the_tests_environment(
    fidelity: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "kb.db"
    monkeypatch.setenv("DB_PATH", str(db))
    server = probes.mcp_module("notes_v1:app", setup="notes_v1:init_db", **PLAN)
    with server, pytest.raises(FidelityError, match=REWRITE):
        fidelity.survey(server, families=["newlines"])  # type: ignore[attr-defined]
    assert server.environment["library"] == f"mcp {version('mcp')}"
    with sqlite3.connect(db) as kept:
        assert kept.execute("SELECT count(*) FROM notes").fetchone()[0] == 12


def test_by_command_in_a_sandbox(fidelity: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DB_PATH", raising=False)
    here = str(Path(__file__).resolve().parent / "notes_v1.py")
    server = probes.mcp([sys.executable, here], sandbox=True, **PLAN)
    with server, pytest.raises(FidelityError, match=REWRITE):
        fidelity.survey(server, families=["newlines"])  # type: ignore[attr-defined]
    sandbox = server.sandbox
    assert sandbox is not None
    assert not Path(sandbox).exists()  # main() made notes.db there; it went with the probe
    assert not Path("notes.db").exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_over_streamable_http(fidelity: object, tmp_path: Path) -> None:
    port = _free_port()
    serve = (
        "import notes_v1 as n; n.init_db(); n.app.settings.host = '127.0.0.1'; "
        f"n.app.settings.port = {port}; n.app.run('streamable-http')"
    )
    env = {**os.environ, "DB_PATH": str(tmp_path / "http.db")}
    here = Path(__file__).resolve().parent
    server = subprocess.Popen(
        [sys.executable, "-c", serve],
        cwd=here,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start within 30 s"
            assert server.poll() is None, "the HTTP server exited"
            time.sleep(0.1)
        probe = probes.mcp(f"http://127.0.0.1:{port}/mcp", **PLAN)
        with probe, pytest.raises(FidelityError, match=REWRITE):
            fidelity.survey(probe, families=["newlines"])  # type: ignore[attr-defined]
    finally:
        server.terminate()
        server.wait(10)
