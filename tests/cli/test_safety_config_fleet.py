"""Safety round 4, ``--config`` fleets (issue 44 rows C4-C6): a server's ``env`` map
reaches the server, a server name that cannot name a card block is refused before any
server starts, and a signal to the whole run ends every server's process group,
removes the sandboxes and writes what was gathered.

Servers are tests/servers/mcp_hostile.py (a pid file, an environment dump, a hang);
every run is fenced (:mod:`_support.bounded`) or signalled with a bound.
"""

from __future__ import annotations

import json
import signal
import tempfile
from pathlib import Path

from _support.bounded import fidelity_bounded
from _support.cli import one_sentence, start, stop
from _support.processes import gone, server_pids, wait_for
from _support.servers import HOSTILE_MCP


def _config(tmp_path: Path, servers: dict[str, dict[str, object]]) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def _stdio(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    entry: dict[str, object] = {"command": HOSTILE_MCP[0], "args": [*HOSTILE_MCP[1:], *args]}
    if env is not None:
        entry["env"] = env
    return entry


def test_c4_a_config_servers_env_reaches_the_server(tmp_path: Path) -> None:
    dump = tmp_path / "env.json"
    secret = "ConfigEnvS3cretValue"
    config = _config(tmp_path, {
        "dumper": _stdio("--env-dump", str(dump), env={"API_TOKEN": secret, "MODE": "x"}),
    })  # fmt: skip
    out = tmp_path / "r.json"
    result = fidelity_bounded(
        "probe", "--config", config, "--max-requests", "6", "--json", str(out),
        timeout=120, env={"FIDELITY_T_PARENT_ONLY": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seen = json.loads(dump.read_text())
    assert (seen["API_TOKEN"], seen["MODE"]) == (secret, "x")
    assert "FIDELITY_T_PARENT_ONLY" not in seen  # over the SDK's minimal environment
    assert not [k for k in seen if k.startswith("FIDELITY_CONFIG_")]
    assert secret not in result.stdout + result.stderr + out.read_text()


def test_c5_a_name_no_card_block_can_hold_is_refused_before_any_server_starts(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pids"
    config = _config(tmp_path, {
        "fine": _stdio("--pid-file", str(pid_file)),
        "not<a>block": _stdio("--pid-file", str(pid_file)),
    })  # fmt: skip
    result = fidelity_bounded(
        "probe", "--config", config, "--card", str(tmp_path / "CARDS.md"), timeout=60
    )
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        "fidelity: --config server 'not<a>block' cannot name a card block (its blocks are "
        "SERVER.TOOL.PARAM); with --card, name it with letters, digits, spaces within and "
        ". _ - : / @ + only."
    )
    assert not pid_file.exists(), "a server was started before the name was refused"
    assert result.stdout == ""


def test_c6_a_signal_ends_every_server_removes_the_sandboxes_and_keeps_the_results(
    tmp_path: Path,
) -> None:
    pids = [tmp_path / "a.pids", tmp_path / "b.pids"]
    calls = [tmp_path / "a.calls", tmp_path / "b.calls"]
    config = _config(tmp_path, {
        name: _stdio("--delay", "0.3", "--calls", str(c), "--child", "--pid-file", str(p))
        for name, p, c in zip(("alpha", "beta"), pids, calls, strict=True)
    })  # fmt: skip
    out = tmp_path / "r.json"
    before = set(Path(tempfile.gettempdir()).glob("fidelity-*"))
    command = start(
        "probe", "--config", config, "--jobs", "2", "--sandbox", "--timeout", "120",
        "--json", str(out),
    )  # fmt: skip
    started = [server_pids(p, bound=90) for p in pids]

    def answered() -> bool:  # each server answered a few payloads (0.3 s each)
        return all(c.exists() and len(c.read_text().splitlines()) >= 8 for c in calls)

    assert wait_for(answered, bound=120), "the servers were not called"
    returncode, stderr = stop(command, signal.SIGTERM)
    assert returncode == 128 + signal.SIGTERM, stderr
    assert "stopped by SIGTERM" in stderr
    for group in started:
        assert gone(group, bound=30), group
    assert wait_for(lambda: set(Path(tempfile.gettempdir()).glob("fidelity-*")) <= before, 30)
    written = json.loads(out.read_text())
    assert sorted(c["name"] for c in written["cards"]) == ["alpha.echo.text", "beta.echo.text"]
    assert [c["facts"]["complete"] for c in written["cards"]] == [False, False]
    assert all(c["observations"] for c in written["cards"])
