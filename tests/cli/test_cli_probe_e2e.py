"""``fidelity probe`` end to end: the installed command against real servers.

The MCP reflector over stdio (request and response paths measured apart), the HTTP
reflector, and an HTTP endpoint that straightens quotes (a real rewrite: exit 1,
then exit 0 once allowed). Reports: JSON, the card block, HTML, ``--json -``,
colour only on a terminal and never with ``NO_COLOR``.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import FIDELITY

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import http_server

REFLECTOR = [*FIDELITY, "reflect", "mcp"]


@pytest.fixture(scope="module")
def straightener() -> Iterator[str]:
    with http_server("straighten") as url:
        yield url


def test_mcp_reflector_over_stdio_with_every_report(tmp_path: Path) -> None:
    need_module("mcp")
    doc = tmp_path / "TOOL.md"
    doc.write_bytes(b"# echo\r\n\r\nHand-written prose.\r\n")
    result = fidelity(
        "probe", "--families", "quotes,bidi", "--json", str(tmp_path / "r.json"),
        "--card", str(doc), "--html", str(tmp_path / "r.html"), "--mcp", "--", *REFLECTOR,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    found, table = result.stdout.splitlines()[:2]
    # The argument was taken from echo's schema, and the command says so (no --param).
    assert found.startswith("payload argument: text (the only free-form string parameter")
    header = table.split()
    assert header[:7] == ["family", "round", "trip", "request", "path", "response", "path"]
    assert "preserved" in result.stdout
    card = json.loads((tmp_path / "r.json").read_text())
    assert card["name"] == "echo.text"
    assert card["facts"]["complete"] is True
    directions = {r["direction"] for r in card["rows"]}
    assert directions == {"round_trip", "request", "response"}
    written = doc.read_bytes()
    assert written.startswith(b"# echo\r\n\r\nHand-written prose.\r\n\r\n")
    assert b"<!-- fidelity:begin echo.text -->\r\n" in written
    assert b"\n" not in written.replace(b"\r\n", b"")
    check = fidelity("card", str(tmp_path / "r.json"), "--check", str(doc))
    assert check.returncode == 0, check.stdout
    assert "<!DOCTYPE html>" in (tmp_path / "r.html").read_text()


def test_http_reflector_budget_counts_both_requests(tmp_path: Path) -> None:
    need_module("starlette")
    import probes

    with probes.http_reflector() as reflector:
        result = fidelity(
            "probe", reflector.url, "--max-requests", "5", "--quiet",
            "--json", str(tmp_path / "r.json"),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # --quiet: the summary only, saying what the budget left out.
    assert result.stdout == "3 payloads: 3 preserved; 297 not sent within --max-requests 5.\n"
    card = json.loads((tmp_path / "r.json").read_text())
    # The first payload costs two requests (echo and emit, before the reflector is
    # known), the next ones one each; the run stops when the next could need two:
    # 2 + 1 + 1 = 4 of 5.
    assert len(card["observations"]) == 3
    assert card["facts"]["complete"] is True


def test_mcp_reflector_budget_is_exact() -> None:
    need_module("mcp")
    # Three calls per payload (echo, reflect, emit): 7 allows two payloads.
    result = fidelity("probe", "--max-requests", "7", "--quiet", "--mcp", "--", *REFLECTOR)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "2 payloads: 2 preserved; 298 not sent within --max-requests 7.\n"
    too_small = fidelity("probe", "--max-requests", "2", "--mcp", "--", *REFLECTOR)
    assert too_small.returncode == 2
    assert "3 calls one payload costs" in too_small.stderr


def test_rewrites_beyond_allow_exit_1_then_0_when_allowed(straightener: str) -> None:
    found = fidelity("probe", straightener, "--families", "quotes")
    assert found.returncode == 1, found.stderr
    assert "quote.straighten" in found.stdout
    assert "U+201C -> U+0022" in found.stdout
    assert "rewrites beyond --allow: quote.straighten" in found.stdout
    allowed = fidelity("probe", straightener, "--families", "quotes", "--allow", "quote.straighten")
    assert allowed.returncode == 0, allowed.stderr
    assert "rewrites beyond --allow" not in allowed.stdout


def test_json_to_stdout_is_nothing_but_json(straightener: str) -> None:
    result = fidelity("probe", straightener, "--families", "quotes", "--json", "-")
    assert result.returncode == 1
    card = json.loads(result.stdout)
    assert card["schema_version"] == 2
    assert "quote.straighten" in {k for r in card["rows"] for k in r["kinds"]}
    assert "quote.straighten" in result.stderr  # the map went to stderr instead


def test_max_requests_caps_what_is_sent(straightener: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", straightener, "--max-requests", "7", "--json", str(tmp_path / "r.json")
    )
    # The three calibration requests that located the read-back count: 3 + 4 payloads. The
    # first payloads are quotes: the straightening is beyond --allow, exit 1.
    assert result.returncode == 1, result.stderr
    assert "rewrites beyond --allow: quote.straighten" in result.stdout
    assert result.stdout.startswith("read back at: json:text (located by calibration calls")
    assert len(json.loads((tmp_path / "r.json").read_text())["observations"]) == 4


def _run_on_a_terminal(args: list[str], env: dict[str, str]) -> bytes:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [*FIDELITY, *args],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    proc.wait(60)
    return b"".join(chunks)


def test_colour_on_a_terminal_unless_no_color(straightener: str) -> None:
    args = ["probe", straightener, "--families", "quotes"]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    coloured = _run_on_a_terminal(args, env)
    # The quotes family is mixed (straight-quote payloads pass, curly ones are
    # straightened): magenta.
    assert re.search(rb"\nquotes +\x1b\[35mmixed *\x1b\[0m", coloured), coloured
    plain = _run_on_a_terminal(args, {**env, "NO_COLOR": "1"})
    assert b"quote.straighten" in plain
    assert b"\x1b" not in plain


def test_mcp_over_streamable_http_by_scheme_and_by_flag() -> None:
    need_module("mcp")
    import probes

    with probes.mcp_reflector("http") as url:
        assert isinstance(url, str)
        by_scheme = fidelity("probe", "mcp+" + url, "--max-requests", "3", "--quiet")
        by_flag = fidelity("probe", "--mcp", url, "--max-requests", "3", "--quiet")
    for result in (by_scheme, by_flag):
        assert result.returncode == 0, result.stderr
        assert result.stdout == "1 payload: 1 preserved; 299 not sent within --max-requests 3.\n"


def test_examples_come_from_the_chosen_families_and_the_facts_say_so(
    straightener: str, tmp_path: Path
) -> None:
    need_module("hypothesis")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", straightener, "--families", "quotes", "--examples", "5", "--seed", "7",
        "--max-requests", "22", "--quiet", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    card = json.loads(out.read_text())
    families = {f for o in card["observations"] for f in o["families"]}
    assert families == {"quotes"}
    generated = [o for o in card["observations"] if "/hypothesis-" in o["payload_id"]]
    # The three calibration requests, 17 catalogue payloads, then 2 of the 5 within budget.
    assert len(generated) == 2
    # The run ended on its budget: the facts still record the examples and the seed.
    assert (card["facts"]["examples"], card["facts"]["seed"]) == (2, 7)


def test_a_seed_is_recorded_when_examples_are_drawn_without_one(
    straightener: str, tmp_path: Path
) -> None:
    need_module("hypothesis")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", straightener, "--families", "quotes", "--examples", "1",
        "--max-requests", "21", "--quiet", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert isinstance(json.loads(out.read_text())["facts"]["seed"], int)


def test_a_small_budget_samples_every_family_asked_for(straightener: str) -> None:
    result = fidelity(
        "probe", straightener, "--families", "quotes,bidi,nul", "--max-requests", "7",
        "--read", "json:text",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()[1:-1]
    rows = [line.split()[0] for line in lines if not line.startswith("hint: ")]
    assert rows == ["quotes", "bidi", "nul"]
    assert "7 payloads" in result.stdout
    assert "not sent within --max-requests 7" in result.stdout
