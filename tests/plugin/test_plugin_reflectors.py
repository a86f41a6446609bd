"""The ready-made reflector fixtures: real servers, started once per session."""

from __future__ import annotations

import json

import pytest
from _needs import need_module

from fidelity._pytest.reflectors import HTTP_REFLECTOR, MCP_REFLECTOR

REFLECTOR_TESTS = """
import pytest

PAYLOADS = ["say \\u201chi\\u201d \\u00e9", "e\\u0301\\r\\n\\ttab"]
FIXTURES = ["fidelity_http_reflector", "fidelity_mcp_reflector"]
SEEN = {}

@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("text", PAYLOADS)
def test_round_trip(request, fidelity, fixture, text):
    probe = request.getfixturevalue(fixture)
    assert SEEN.setdefault(fixture, probe) is probe  # started once, reused
    observation = fidelity.check(probe, text)
    assert observation.status == "preserved"
    assert {str(p.direction) for p in observation.parts} == {"request", "response"}
"""


SURVEY_TESTS = """
import pytest

@pytest.mark.fidelity(card="http")
def test_http(fidelity, fidelity_http_reflector):
    fidelity.survey(fidelity_http_reflector, families=["bom"])

@pytest.mark.fidelity(card="mcp")
def test_mcp(fidelity, fidelity_mcp_reflector):
    fidelity.survey(fidelity_mcp_reflector, families=["bom"])
"""


def test_reflector_fixtures_yield_working_probes(pytester: pytest.Pytester) -> None:
    for module in ("httpx", "starlette", "uvicorn", "mcp"):
        need_module(module)
    pytester.makepyfile(test_reflector=REFLECTOR_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_reflector_cards_name_a_fixed_chain(pytester: pytest.Pytester) -> None:
    # The chain is part of the card: no OS-assigned port or interpreter path in it, so
    # two runs, two machines and two xdist workers write the same card.
    for module in ("httpx", "starlette", "uvicorn", "mcp"):
        need_module(module)
    pytester.makepyfile(test_reflector=SURVEY_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "--fidelity-cards=cards")
    result.assert_outcomes(passed=2)
    chains = {
        name: json.loads((pytester.path / "cards" / f"{name}.json").read_text("utf-8"))["facts"][
            "chain"
        ]
        for name in ("http", "mcp")
    }
    assert chains == {"http": HTTP_REFLECTOR, "mcp": MCP_REFLECTOR}
