"""``fidelity probe --config FILE``: every server of a client's configuration, in one run.

Config files in both forms (an ``mcpServers`` map with comments and trailing commas,
a ``servers`` map with ``type``) holding real servers: the reference npm servers, the
PyPI mcp-server-git, our stdio reflector, a command that does not exist, and an MCP
server over Streamable HTTP that answers only with its header. The parts of a run split
by ``--server``, each in turn (``--jobs 1``), and joined by ``fidelity card`` give the
JSON collection, document, map and JUnit of the whole file run with ``--jobs 3`` (the
document and JUnit byte for byte; our reflector in the place of server-everything: what
they compare is how the runs are ordered and joined, not which server answers).
"""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.junit import RAW, cases, check_schema
from _support.mcp import npm_server
from _support.servers import SERVERS

REPO = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-token-f29"
SECRET = "hunter2-env-f29"


@pytest.fixture(scope="module")
def header_server() -> Iterator[str]:
    """The URL of tests/servers/mcp_http_header.py, which wants ``Bearer TOKEN`` (one for
    the module: it keeps no state between sessions, it only checks the header)."""
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "mcp_http_header.py"), TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            assert selector.select(timeout=60), "the header server did not start"
        yield process.stdout.readline().decode().strip()
    finally:
        process.kill()
        process.wait(timeout=10)


def _mcp_servers_file(tmp_path: Path, url: str, *, npm: bool = True) -> Path:
    everything = REPO / npm_server("everything") if npm else Path(sys.executable)
    args = "" if npm else ', "args": ["-m", "probes._mcp"]'
    text = f"""{{
      // a desktop client's file: comments and trailing commas are common
      "mcpServers": {{
        "everything": {{"command": {json.dumps(str(everything))}{args},
                        "env": {{"API_KEY": "${{env:F29_SECRET}}"}}}},
        "reflector": {{"command": {json.dumps(sys.executable)}, "args": ["-m", "probes._mcp"],}},
        /* a server that is not installed */
        "missing": {{"command": "/nonexistent/mcp-server-x"}},
        "remote": {{"url": {json.dumps(url)},
                    "headers": {{"Authorization": "Bearer ${{F29_TOKEN}}"}}}},
      }},
    }}"""
    path = tmp_path / "mcp.json"
    path.write_text(text, encoding="utf-8")
    return path


_ENV = {"F29_SECRET": SECRET, "F29_TOKEN": TOKEN}


def _run(config: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    out.mkdir()
    return fidelity(
        "probe", "--config", str(config), "--families", "quotes", *options,
        "--json", str(out / "all.json"), "--junit", str(out / "all.xml"),
        "--card", str(out / "DOC.md"), env=_ENV, timeout=600,
    )  # fmt: skip


def _no_secret(*texts: str) -> None:
    for text in texts:
        assert SECRET not in text
        assert TOKEN not in text


@pytest.mark.timeout(400)
def test_every_server_of_an_mcp_servers_file(tmp_path: Path, header_server: str) -> None:
    config = _mcp_servers_file(tmp_path, header_server)
    result = _run(config, tmp_path / "out", "--jobs", "3")
    # The missing server fails (exit 3, its sentence); the others went on.
    assert result.returncode == 3, result.stderr
    _no_secret(result.stdout, result.stderr)
    assert not RAW.search(result.stdout)
    for name in ("all.json", "all.xml", "DOC.md"):
        _no_secret((tmp_path / "out" / name).read_text(encoding="utf-8"))
    # Each section whole: its heading, then its own lines, before the next heading.
    sections = result.stdout.split("\n== ")
    assert {s.split(" (exit")[0].removeprefix("== ") for s in sections[:4]} == {
        "everything", "reflector", "missing", "remote",
    }  # fmt: skip
    summary = result.stdout.splitlines()
    assert summary[-5].split() == ["server", "quotes"]
    assert [line.split()[0] for line in summary[-4:-1]] == ["everything", "reflector", "remote"]
    assert summary[-1].startswith("failed: missing: could not open an MCP session")
    xml = (tmp_path / "out" / "all.xml").read_text(encoding="utf-8")
    check_schema(xml)
    found = cases(tmp_path / "out" / "all.xml")
    assert ("remote", "remote.echo.text") in found
    assert ("everything", "everything.echo.message") in found
    [error] = found[("missing", "(server)")].result  # type: ignore[attr-defined]
    assert error.message.startswith("could not open an MCP session")
    document = (tmp_path / "out" / "DOC.md").read_text(encoding="utf-8")
    assert "<!-- fidelity:begin remote.echo.text -->" in document


@pytest.mark.timeout(400)
def test_in_turn_in_parallel_and_in_parts_give_the_same_document_map_and_junit(
    tmp_path: Path, header_server: str
) -> None:
    # Our reflector in the place of server-everything; three runs: the whole file in
    # parallel, and in two parts in turn (--jobs 1, the default). The missing server ends
    # first, so the run in parallel ends in another order than the file's; its files and
    # map are those of the parts in turn, joined.
    config = _mcp_servers_file(tmp_path, header_server, npm=False)
    whole = _run(config, tmp_path / "whole", "--jobs", "3")
    assert whole.returncode == 3, whole.stderr
    _no_secret(whole.stdout, whole.stderr)
    parts = []
    for first, second in (("everything", "missing"), ("reflector", "remote")):
        part = tmp_path / f"{first}-{second}.json"
        result = fidelity(
            "probe", "--config", str(config), "--server", first, "--server", second,
            "--families", "quotes", "--quiet", "--json", str(part), env=_ENV, timeout=300,
        )  # fmt: skip
        assert result.returncode == (3 if second == "missing" else 0), result.stderr
        _no_secret(result.stdout, result.stderr)
        parts.append(str(part))
    # The JSON collection: the parts' cards and failed servers, in the file's order.
    first, second = (json.loads(Path(part).read_text(encoding="utf-8")) for part in parts)
    assert [c["name"] for c in first["cards"]] == [
        "everything.echo.text",
        "everything.reflect.text",
    ]
    assert [f["server"] for f in first["failed"]] == ["missing"]
    assert [c["name"] for c in second["cards"]] == [
        "reflector.echo.text", "reflector.reflect.text", "remote.echo.text",
    ]  # fmt: skip
    assert second["failed"] == []
    joined_json = {**first, "cards": first["cards"] + second["cards"], "failed": first["failed"]}
    assert json.loads((tmp_path / "whole" / "all.json").read_text(encoding="utf-8")) == joined_json
    joined = fidelity(
        "card", *parts, "--update", str(tmp_path / "DOC.md"), "--junit", str(tmp_path / "ALL.xml")
    )
    assert joined.returncode == 0, joined.stderr
    assert (tmp_path / "DOC.md").read_bytes() == (tmp_path / "whole" / "DOC.md").read_bytes()
    assert (tmp_path / "ALL.xml").read_bytes() == (tmp_path / "whole" / "all.xml").read_bytes()
    # The map, with the failed server's line: the last lines of the whole run's output.
    lines = joined.stdout.splitlines()
    assert lines[-1].startswith("failed: missing: could not open an MCP session")
    assert whole.stdout.splitlines()[-len(lines) :] == lines


@pytest.mark.timeout(300)
def test_a_servers_file_with_the_pypi_git_server(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    config = tmp_path / "workspace.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "git": {
                        "type": "stdio",
                        "command": sys.executable,
                        "args": ["-m", "mcp_server_git", "--repository", "${env:F29_REPO}"],
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    # The read-only tools but git_status are left out (each surveyed parameter costs a
    # server process; they fail as git_status does), which also shows --skip-tool reaching
    # the server's run.
    skipped = ("git_diff*", "git_log", "git_show", "git_branch")
    result = fidelity(
        "probe", "--config", str(config), "--families", "quotes",
        *(a for glob in skipped for a in ("--skip-tool", glob)),
        "--json", str(tmp_path / "r.json"),
        env={"F29_REPO": str(repo)}, timeout=300,
    )  # fmt: skip
    # Without --yes the tools that write are not called; git_status is, with a marker for
    # its repo_path, which the server refuses (outside the repository it was given, from
    # the file's ${env:F29_REPO}): nothing is measured, and the section says why, in the
    # --all-tools words.
    assert result.returncode == 3
    assert "== git (exit 3)" in result.stdout
    assert "git_commit.message" in result.stdout
    assert "needs --yes (annotated readOnlyHint: false)" in result.stdout
    assert "git_log.repo_path" in result.stdout
    assert "left out (--skip-tool git_log)" in result.stdout
    [status] = [line for line in result.stdout.splitlines() if "git_status.repo_path" in line]
    assert "no read-back: the calibration call" in status
    assert f"outside the allowed repository '{repo}'" in status
    assert "failed: git: nothing was measured" in result.stdout


@pytest.mark.timeout(300)
def test_tool_globs_apply_to_the_whole_file(tmp_path: Path) -> None:
    # --skip-tool wipe names a tool only the note store has, --only-tool search one only
    # it has: each server leaves out what they match, and the reflector, which they leave
    # no tool of, is surveyed for nothing and is no failure. Two globs match no tool of
    # either server (typos), as does one --args-for pin (the other pins a tool only the
    # note store has, which the reflector does not refuse): one sentence says so once the
    # run is over, its results kept, and the exit code is the usage error's.
    config = tmp_path / "mcp.json"
    store = [str(SERVERS / "mcp_note_store.py")]
    reflector = ["-m", "probes._mcp"]
    servers = {
        n: {"command": sys.executable, "args": a}
        for n, a in (("notes", store), ("reflector", reflector))
    }
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    result = fidelity(
        "probe", "--config", str(config), "--families", "quotes",
        "--skip-tool", "wipe", "--skip-tool", "wpie", "--only-tool", "search",
        "--only-tool", "serch*", "--args-for", 'read_note={"name": "n"}',
        "--args-for", 'raed_note={"name": "n"}',
        "--json", str(tmp_path / "all.json"), timeout=300,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "== notes (exit 0)" in result.stdout
    assert "wipe.reason     left out (--skip-tool wipe)" in result.stdout
    assert "read_note.name  left out (not matched by --only-tool)" in result.stdout
    assert "== reflector (exit 0)" in result.stdout
    assert "every tool of this MCP server is left out by --skip-tool/--only-tool" in result.stdout
    assert "matches none" not in result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        "fidelity: --skip-tool 'wpie', --only-tool 'serch*' and --args-for 'raed_note' match "
        "no tool of the servers reached (notes, reflector); their results are kept; correct "
        "them."
    ]
    collection = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in collection["cards"]] == ["notes.search.query"]
    assert collection["failed"] == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"servers": {"a": {"command": "x", "args": ["${input:tok}"]}}}', "${input:tok}"),
        (
            '{"servers": {"a": {"command": "${env:F29_UNSET_VAR}"}}}',
            "${env:F29_UNSET_VAR}, not set",
        ),
        ('{"other": 1}', "holds no server"),
        ('{"servers": {"a": {"command": "x"}}', "is not JSON"),
    ],
)
def test_a_bad_config_is_one_sentence(tmp_path: Path, text: str, said: str) -> None:
    config = tmp_path / "c.json"
    config.write_text(text, encoding="utf-8")
    result = fidelity("probe", "--config", str(config))
    assert result.returncode == 2
    assert said in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unknown_server_name_lists_the_servers(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    config.write_text(
        '{"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:9/"}}}'
    )
    result = fidelity("probe", "--config", str(config), "--server", "zz")
    assert result.returncode == 2
    assert "--server zz: not in" in result.stderr
    assert "its servers are a, b" in result.stderr


def test_one_target_options_are_refused_with_config(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    config.write_text('{"mcpServers": {"a": {"command": "x"}}}')
    result = fidelity("probe", "--config", str(config), "--tool", "echo")
    assert result.returncode == 2
    assert "--tool describes one target" in result.stderr


def test_jsonc_comments_inside_strings_are_kept() -> None:
    from fidelity._sweep.config import strip_jsonc

    text = '{"a": "http://x//y /* z */", // c\n "b": [1, 2,], /* d */}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x//y /* z */", "b": [1, 2]}
