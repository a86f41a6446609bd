"""``fidelity.errors(server)`` in a test suite: the error contract of an MCP server
(tests/servers/mcp_errors.py), the test failed when a verdict is beyond ``allow``."""

from __future__ import annotations

import sys

import pytest
from _needs import need_module
from _support.servers import SERVERS

ERRORS_TESTS = f"""
SERVER = [{sys.executable!r}, {str(SERVERS / "mcp_errors.py")!r}]


def test_a_validating_tool_keeps_its_contract(fidelity):
    contract = fidelity.errors(SERVER, tool="validate")
    assert contract.counts["structured"] == 12
    assert [c.case for c in contract.calls][:3] == ["unknown-tool", "missing:path", "type:path"]


def test_accepted_calls_pass_when_allowed(fidelity):
    contract = fidelity.errors(SERVER, tool="anything", allow=["error.accepted"])
    assert contract.counts["accepted"] == 4


def test_a_leaky_tool_fails(fidelity):
    fidelity.errors(SERVER, tool="trace")


def test_a_tool_that_needs_yes_is_refused(fidelity):
    fidelity.errors(SERVER, tool="wipe")
"""


def test_the_fixture_checks_the_error_contract(pytester: pytest.Pytester) -> None:
    need_module("mcp")
    pytester.makepyfile(test_errors=ERRORS_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    output = result.stdout.str()
    assert "FidelityError: the error contract of " in output
    assert "4 malformed calls answered beyond the allowed verdicts:" in output
    assert "trace missing:text: leaky (refused with a stack trace): Traceback" in output
    assert "UsageError: tool 'wipe' may change or delete data (destructiveHint: true)" in output
