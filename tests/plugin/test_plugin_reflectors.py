"""The ready-made reflector fixtures: real servers, started once per session."""

from __future__ import annotations

import pytest
from _needs import need_module

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


def test_reflector_fixtures_yield_working_probes(pytester: pytest.Pytester) -> None:
    for module in ("httpx", "starlette", "uvicorn", "mcp"):
        need_module(module)
    pytester.makepyfile(test_reflector=REFLECTOR_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
