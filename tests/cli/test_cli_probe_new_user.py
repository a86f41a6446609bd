"""Bugs a new user found in ``fidelity probe`` and ``fidelity survey``, each reproduced.

- the request-path column said "preserved" for header values httpx refused to encode
  before sending (those observations had no request part);
- ``--examples 200 --seed 1 --dry-run`` promised 200 examples and the run sent fewer;
- ``--families quotes,paths,whitespace`` added rows for other families of payloads
  tagged with two;
- ``fidelity survey`` (and ``--list``) left out the Node chain without a word.

(The "smallest example" cut at 40 characters is in test_cli_probe_verdicts.py with
mcp-server-git; the HTML header's count in test_html_report.py.)
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from _support.cli import FIDELITY

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity

import probes

REFLECTOR = [*FIDELITY, "reflect", "mcp"]


def _rows(result: Path) -> dict[tuple[str, str], dict[str, Any]]:
    card = json.loads(result.read_text())
    return {(r["family"], r["direction"]): r for r in card["rows"]}


def _table(stdout: str) -> dict[str, list[str]]:
    """The terminal map: family -> its cells (the lines before it and after it left out)."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("family "))
    return {line.split()[0]: line.split() for line in lines[start + 1 :] if "payloads" not in line}


def test_refused_before_sending_counts_on_the_request_path(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with probes.http_reflector() as reflector:
        url = reflector.url
        result = fidelity(
            "probe", url, "--send", "header:X-V", "--read", "json:text",
            "--families", "quotes", "--json", str(out),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    observations = json.loads(out.read_text())["observations"]
    # The truth from httpx itself: which values it refuses to put in a header.
    refused = set()
    for obs in observations:
        value = base64.b64decode(obs["sent"]["data"]).decode("utf-8", "surrogatepass")
        try:
            httpx.Request("POST", url, headers={"X-V": value})
        except UnicodeEncodeError:
            refused.add(obs["payload_id"])
    assert refused
    assert len(refused) < len(observations)
    assert {o["payload_id"] for o in observations if o.get("client_side")} == refused
    rows = _rows(out)
    request = dict(rows[("quotes", "request")]["statuses"])
    assert request.get("rejected") == len(refused)
    assert request.get("preserved") == len(observations) - len(refused)
    # The terminal says so too: the request path is mixed, not "preserved".
    assert _table(result.stdout)["quotes"][1:3] == ["mixed", "mixed"]
    # And the card read back from the JSON agrees with the run.
    card = fidelity("card", str(out))
    assert "| quotes | request | mixed: " in card.stdout


def test_only_the_families_asked_for_get_rows(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    asked = ["quotes", "paths", "whitespace"]
    result = fidelity(
        "probe", "--families", ",".join(asked), "--json", str(out), "--mcp", "--", *REFLECTOR
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Payloads tagged with two families exist among those asked for (paths with a CRLF,
    # whitespace with escapes), so without the fix other rows would appear.
    from fidelity._core.siblings import load

    tagged = {f for p in load("strategies").catalogue(asked) for f in p.families}
    assert tagged - set(asked)
    assert sorted(_table(result.stdout)) == sorted(asked)
    assert {family for family, _ in _rows(out)} == set(asked)


def test_the_dry_run_promises_the_examples_the_run_sends(tmp_path: Path) -> None:
    options = ["--families", "quotes", "--examples", "200", "--seed", "1"]
    dry = fidelity("probe", *options, "--dry-run", "--mcp", "--", *REFLECTOR)
    assert dry.returncode == 0, dry.stderr
    assert "17 payloads, plus 200 generated examples (seed 1)" in dry.stdout
    listed = [line.split()[0] for line in dry.stdout.splitlines() if "/hypothesis-" in line]
    assert len(listed) == 200
    out = tmp_path / "r.json"
    run = fidelity("probe", *options, "--quiet", "--json", str(out), "--mcp", "--", *REFLECTOR)
    # The reflector's echo keeps every value (seed 1's examples included).
    assert run.returncode == 0, run.stderr
    assert run.stdout.endswith("217 payloads: 217 preserved.\n")
    card = json.loads(out.read_text())
    sent = [o for o in card["observations"] if "/hypothesis-" in o["payload_id"]]
    assert sorted(o["payload_id"] for o in sent) == sorted(listed)
    texts = [o["sent"]["data"] for o in sent]
    assert len(set(texts)) == 200  # distinct values, none sent twice
    assert card["facts"]["examples"] == 200
    assert "not sent" not in run.stdout


def test_a_narrow_strategy_gives_what_it_holds_and_says_so() -> None:
    from hypothesis import strategies as st

    from fidelity._run.budget import examples_note
    from fidelity._survey.run import _generate

    drawn = _generate(st.sampled_from(["a", "b", "c", "d"]), 10, seed=1, exclude={"d"})
    assert sorted(drawn) == ["a", "b", "c"]
    assert examples_note(10, 3, 1) == (
        "3 distinct generated examples of the 10 asked (the families hold no more distinct "
        "values for seed 1; duplicates are not sent)"
    )
    assert examples_note(10, 10, 1) == ""


@pytest.mark.skipif(sys.platform == "win32", reason="PATH without node, POSIX layout")
def test_survey_names_the_missing_node_chain_and_what_installs_it(tmp_path: Path) -> None:
    # A PATH without node: the TypeScript reflector cannot run here.
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git",):  # nothing the survey needs from PATH but the interpreter
        found = shutil.which(tool)
        if found:
            os.symlink(found, bare / tool)
    env = {"PATH": str(bare)}
    listed = fidelity("survey", "--list", env=env)
    assert listed.returncode == 0, listed.stderr
    (line,) = [x for x in listed.stdout.splitlines() if x.startswith("mcp.stdio.node")]
    assert "unavailable: needs Node.js (node is not on PATH)" in line
    assert "npm ci --prefix " in line
    run = fidelity("survey", "--chains", "json", "--families", "quotes", env=env)
    assert run.returncode == 0, run.stderr
    # Only the chains asked for run: the node chain is not mentioned then.
    assert "mcp.stdio.node" not in run.stdout
    everything = fidelity("survey", "--families", "quotes", env=env, timeout=300)
    assert everything.returncode == 0, everything.stderr
    head = everything.stdout.splitlines()[:2]
    assert head[0].endswith("chains, 17 catalogue payloads through each")
    assert head[1].startswith("not surveyed: mcp.stdio.node: needs Node.js (node is not on PATH)")


def test_the_node_chain_names_the_install_it_misses(tmp_path: Path) -> None:
    from probes._mcp.reflector import _node_reflector

    need_node = shutil.which("node")
    servers = tmp_path / "servers"
    servers.mkdir()
    # Outside a source tree (no script): not a chain of this installation at all.
    assert _node_reflector(servers) == (None, "")
    (servers / "mcp_reflector.mjs").write_text("// the reflector\n")
    script, missing = _node_reflector(servers)
    assert script == str(servers / "mcp_reflector.mjs")
    if need_node:
        assert missing == f"needs the TypeScript MCP SDK, which npm ci --prefix {servers} installs."
        (servers / "node_modules" / "@modelcontextprotocol" / "sdk").mkdir(parents=True)
        assert _node_reflector(servers) == (script, "")
    else:
        assert missing.startswith("needs Node.js (node is not on PATH)")
