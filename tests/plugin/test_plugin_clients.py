"""``fidelity.survey(probe, clients=...)`` in a test suite: one MCP probe's plan through
the Python and the TypeScript SDK clients, against the TypeScript reflector."""

from __future__ import annotations

import json

import pytest
from _needs import need_module
from _support.mcp import typescript_client
from _support.servers import SERVERS

CLIENT_TESTS = f"""
import pytest

import probes
from fidelity import UsageError

SERVER = ["node", {str(SERVERS / "mcp_reflector.mjs")!r}]


@pytest.mark.fidelity(card="echo.quotes")
def test_the_clients_agree(fidelity):
    probe = probes.mcp(SERVER, timeout=5)
    result = fidelity.survey(probe, families=["quotes"], clients=["python", "typescript"])
    assert result.clients == ("python", "typescript")
    assert [len(s.observations) for s in result.surveys] == [17, 17]
    assert result.section.differences == ()
    assert [r.protocol_version for r in result.section.runs] == ["2025-11-25", "2025-11-25"]


@pytest.mark.fidelity(card="echo.surrogates")
def test_the_clients_disagree(fidelity):
    probe = probes.mcp(SERVER, timeout=5)
    fidelity.survey(probe, families=["surrogates"], clients="python,typescript")


def test_clients_need_an_mcp_probe(fidelity):
    with pytest.raises(UsageError, match="applies to MCP probes"):
        fidelity.survey(str, clients=["python"])


def test_unknown_clients_are_named(fidelity):
    with pytest.raises(UsageError, match="'java' is not an MCP client; the clients are: python"):
        fidelity.survey(probes.mcp(SERVER), clients=["java"])
"""


def test_survey_through_clients(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    need_module("mcp")
    typescript_client(monkeypatch)
    pytester.makepyfile(test_clients=CLIENT_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "--fidelity-cards=cards")
    result.assert_outcomes(passed=3, failed=1)
    output = result.stdout.str()
    assert (
        "FidelityError: the chain echo.surrogates through python, typescript: through python, "
        "the chain rewrote payloads: encoding.surrogate_split (not allowed); through "
        "typescript, the chain rewrote payloads: encoding.surrogate_split (not allowed); the "
        "clients disagree on 8 payloads beyond the allowed kinds"
    ) in output
    assert "surrogates (request path), 7 payloads, e.g. U+D800" in output
    assert "\x1b" not in output
    card = json.loads((pytester.path / "cards" / "echo.surrogates.json").read_text("utf-8"))
    assert [r["client"] for r in card["clients"]["runs"]] == ["python", "typescript"]
    assert len(card["clients"]["differences"]) == 8 + 8 + 7  # round trip, request, response
    quotes = json.loads((pytester.path / "cards" / "echo.quotes.json").read_text("utf-8"))
    assert quotes["clients"]["differences"] == []
    assert "echo.surrogates [typescript]" in output  # the session's summary, per client
