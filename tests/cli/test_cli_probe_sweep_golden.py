"""``fidelity probe --all-tools --json`` of a whole server is pinned, and
``fidelity.sweep(...)`` gives the same document and exit code.

The whole-server fixture is @modelcontextprotocol/server-everything with ``--yes``
(as tests/cli/test_cli_probe_all_tools.py runs it): echo and four prompt arguments
surveyed, the other parameters not surveyed with their reasons, exit 3 (six surveyed
parameters measured nothing). golden/all_tools_everything.json was written by the
command before its domain moved to the sweep layer; what varies from run to run is
masked here: the date, the environment and version of each card, the calibration
markers' run ids.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import npm_server

import fidelity as api

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "all_tools_everything.json"
#: gzip-file-as-resource fetches a URL from the network unless its data is given.
DATA = {"data": "data:text/plain;base64,SGVsbG8="}
#: The run ids of the calibration markers ('fidelity-marker-1af53726', 'fidelity-1af53726-0').
RUN_ID = re.compile(r"fidelity-(marker-)?[0-9a-f]{8}")
MASKED = ("date", "environment", "version")
#: The sentence of the run's exit 3, as the command prints it on stderr.
SENTENCE = (
    "6 of the 11 tool parameters surveyed measured nothing (gzip-file-as-resource.name, "
    "simulate-research-query.topic, prompt:resource-prompt.resourceType, "
    "prompt:resource-prompt.resourceId, "
    "resource:demo://resource/dynamic/text/{resourceId}.resourceId, "
    "resource:demo://resource/dynamic/blob/{resourceId}.resourceId); the lines above say "
    "why, and the results of the others are kept."
)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<masked>" if k in MASKED else _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    if isinstance(value, str):
        return RUN_ID.sub(lambda m: f"fidelity-{m.group(1) or ''}<run>", value)
    return value


def _masked(text: str) -> str:
    return json.dumps(_mask(json.loads(text)), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def everything() -> list[str]:
    need_module("mcp")
    return [npm_server("everything")]


def test_the_whole_server_json_is_the_golden_one_from_the_cli_and_from_sweep(
    everything: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.json"
    cli = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--args-for", f"gzip-file-as-resource={json.dumps(DATA)}", "--json", str(out),
        "--", *everything, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert cli.returncode == 3, cli.stderr
    assert cli.stderr == f"fidelity: {SENTENCE}\n"
    golden = GOLDEN.read_text(encoding="utf-8")
    assert _masked(out.read_text(encoding="utf-8")) == golden
    # The library: the same plan, the same document, the same exit code and sentence.
    monkeypatch.chdir(REPO)
    swept = api.sweep(
        mcp=everything, yes=True, families=["quotes"], args_for={"gzip-file-as-resource": DATA}
    )
    assert _masked(swept.to_json()) == golden
    assert swept.exit_code == cli.returncode == 3
    assert swept.message == SENTENCE
    # A row per string parameter: five surveyed with their cards, the others with why.
    cards = [r.name for r in swept.rows if r.card is not None]
    assert cards == [
        "echo.message", "prompt:args-prompt.city", "prompt:args-prompt.state",
        "prompt:completable-prompt.department", "prompt:completable-prompt.name",
    ]  # fmt: skip
    assert [c.name for c in swept.cards] == cards
    assert len(swept.rows) == 16
    by_name = {r.name: r for r in swept.rows}
    assert by_name["get-annotated-message.messageType"].skipped == (
        "constrained (enum): not free-form text"
    )
    assert by_name["simulate-research-query.topic"].card is None
    assert not swept.beyond_allow
    assert swept.complete
    assert "get-sum" in swept.tools_without_strings
