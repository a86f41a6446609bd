"""``fidelity probe --config``: the children it runs, seen from outside.

Each server of the file is surveyed by a child ``fidelity probe`` process. What the
user relies on, checked apart from the code that does it: no more than ``--jobs``
children at once (the servers count them from their parents' process ids), a header's
secret never on a child's command line (which ``ps`` shows to every user of the
machine: an HTTP server the child talks to reads every process's command line while
it answers), and a child that dies of a signal is a broken server (exit 3), never
"rewrites found" (exit 1).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from _support.cli import fidelity_inprocess as fidelity

TOKEN = "c1d-secret-token-7f3"

#: A stdio server that records, as it starts, how many distinct ``fidelity`` children
#: (its parent and the parents of the other servers still running) are alive, then
#: becomes our reflector. ``MARKS`` is a directory shared by every server of the run.
_COUNTING = """
import os, sys
marks = sys.argv[1]
mine = os.path.join(marks, str(os.getppid()))
open(mine, "a").close()
alive = 0
for name in os.listdir(marks):
    try:
        with open(f"/proc/{name}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        continue
    alive += state != "Z"
with open(os.path.join(marks, "counts"), "a") as out:
    out.write(f"{alive}\\n")
os.execv(sys.executable, [sys.executable, "-m", "probes._mcp"])
"""


def _config(tmp_path: Path, servers: dict[str, dict[str, object]]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def _probe(config: Path, tmp_path: Path, *options: str) -> object:
    return fidelity(
        "probe", "--config", str(config), "--families", "quotes", "--max-requests", "8",
        "--json", str(tmp_path / "all.json"), *options, timeout=600,
    )  # fmt: skip


@pytest.mark.timeout(400)
def test_jobs_n_runs_at_most_n_servers_at_once(tmp_path: Path) -> None:
    script = tmp_path / "counting.py"
    script.write_text(_COUNTING, encoding="utf-8")
    marks = tmp_path / "marks"
    marks.mkdir()
    command = {"command": sys.executable, "args": [str(script), str(marks)]}
    config = _config(tmp_path, {f"s{i}": command for i in range(4)})
    result = _probe(config, tmp_path, "--jobs", "2")
    assert result.returncode == 0, result.stderr  # type: ignore[attr-defined]
    counts = [int(n) for n in (marks / "counts").read_text().split()]
    # Every server started (each child lists its tools, then surveys echo.text)...
    assert len({p.name for p in marks.iterdir()} - {"counts"}) == 4
    # ...never more than two children at once, and two at once at some point.
    assert max(counts) == 2, counts


class _Scanner(BaseHTTPRequestHandler):
    """Answers every request 404 (no MCP here) after looking for ``TOKEN`` in every
    process's command line; records what it saw."""

    seen: list[tuple[str, bool]] = []  # noqa: RUF012

    def _scan(self) -> None:
        on_a_command_line = False
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    on_a_command_line |= TOKEN.encode() in cmdline.read()
            except OSError:
                continue
        type(self).seen.append((self.headers.get("Authorization", ""), on_a_command_line))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = _scan
    do_GET = _scan

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def scanner() -> Iterator[str]:
    _Scanner.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scanner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def test_a_header_secret_is_never_on_a_childs_command_line(tmp_path: Path, scanner: str) -> None:
    config = _config(
        tmp_path,
        {"remote": {"url": scanner, "headers": {"Authorization": f"Bearer {TOKEN}"}}},
    )
    result = _probe(config, tmp_path)
    assert result.returncode == 3  # type: ignore[attr-defined]  # no MCP server answered
    assert _Scanner.seen, "the child never reached the server"
    # The header arrived whole (so the secret did reach the child), yet no process's
    # command line held it while the child was talking to the server.
    assert {auth for auth, _ in _Scanner.seen} == {f"Bearer {TOKEN}"}
    assert not any(on_line for _, on_line in _Scanner.seen)


def test_a_child_killed_by_a_signal_is_a_broken_server_exit_3(tmp_path: Path) -> None:
    # The "server" kills its parent, the child fidelity process, with SIGKILL.
    config = _config(
        tmp_path,
        {
            "reflector": {"command": sys.executable, "args": ["-m", "probes._mcp"]},
            "killer": {"command": "/bin/sh", "args": ["-c", "kill -9 $PPID"]},
        },
    )
    result = _probe(config, tmp_path)
    assert result.returncode == 3, result.stdout  # type: ignore[attr-defined]
    assert "== killer (exit -9)" in result.stdout  # type: ignore[attr-defined]
    assert result.stdout.splitlines()[-1].startswith("failed: killer: exit -9")  # type: ignore[attr-defined]
