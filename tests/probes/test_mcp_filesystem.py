"""Write-then-read through a real third-party MCP server from npm:
@modelcontextprotocol/server-filesystem (write_file, then read_text_file).

Its card is checked in as an example under docs/cards/. Regenerate it with
``python tests/probes/test_mcp_filesystem.py`` after a deliberate change; the test
fails when the chain drifts from the committed card.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _needs import need, need_executable, need_module
from _support.mcp import NODE_MODULES, catalogue, node_ready, undated

import fidelity
import probes
from fidelity import Direction, Status

CARD = Path(__file__).resolve().parents[2] / "docs" / "cards" / "mcp-server-filesystem.md"
SERVER = NODE_MODULES / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
NAME = "@modelcontextprotocol/server-filesystem write_file.content -> read_text_file"


def survey_filesystem() -> fidelity.Survey:
    """Survey the catalogue through write_file then read_text_file in a temp dir."""
    with (
        tempfile.TemporaryDirectory() as root,
        probes.mcp(
            ["node", str(SERVER), root],
            tool="write_file",
            param="content",
            args={"path": str(Path(root) / "payload.txt")},
            read_tool="read_text_file",
            allow_destructive=True,
            cwd=root,
        ) as probe,
    ):
        assert probe.max_requests_per_observation == 2
        return fidelity.survey(probe, payloads=catalogue())


@pytest.fixture(scope="module")
def surveyed() -> fidelity.Survey:
    need_module("mcp")
    need_executable("node")
    need(node_ready(), "tests/servers/node_modules is missing: run npm ci --prefix tests/servers")
    return survey_filesystem()


def test_write_then_read_through_the_filesystem_server(surveyed: fidelity.Survey) -> None:
    by_status: dict[Status, list[fidelity.Observation]] = {}
    for obs in surveyed.observations:
        by_status.setdefault(obs.status, []).append(obs)
        assert obs.direction is Direction.ROUND_TRIP
    # Lone surrogates never leave the Python SDK client (it refuses them: rejected on
    # the client side); the rest arrives in the file.
    assert Status.BROKEN not in by_status
    assert by_status[Status.REJECTED]
    for obs in by_status[Status.REJECTED]:
        assert obs.client_side, obs.error
        assert "surrogates" in obs.families
    assert len(by_status.get(Status.PRESERVED, [])) > 200


def test_committed_card_matches(surveyed: fidelity.Survey) -> None:
    current = surveyed.card(name=NAME).to_markdown()
    assert CARD.is_file(), f"missing {CARD}: run python {__file__}"
    assert undated(CARD.read_text(encoding="utf-8")) == undated(current), (
        f"the chain drifted from {CARD.name}; rerun python {__file__} if that is intended"
    )


if __name__ == "__main__":
    CARD.write_text(survey_filesystem().card(name=NAME).to_markdown(), encoding="utf-8")
    print(f"wrote {CARD}")
