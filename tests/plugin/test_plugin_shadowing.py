"""A user's repository with its own ``tests/strategies.py``: the plugin still works."""

from __future__ import annotations

import pytest

USER_STRATEGIES = """
# The user's own helpers, unrelated to param-fidelity.
def build_order(n):
    return {"id": n}
"""

USER_TESTS = """
import strategies
import tool

def test_own_strategies():
    assert strategies.build_order(3) == {"id": 3}

def test_check_still_works(fidelity):
    fidelity.check(tool.send, "plain")

def test_survey_names_the_shadowing(fidelity):
    fidelity.survey(tool.send)

def test_fixture_strategies_names_the_shadowing(fidelity):
    fidelity.strategies.text()

def test_direct_use_gets_a_hint():
    strategies.text()
"""


def test_a_local_strategies_module_is_named_not_an_attribute_error(
    tool_repo: pytest.Pytester,
) -> None:
    tests = tool_repo.mkdir("tests")
    (tests / "strategies.py").write_text(USER_STRATEGIES, encoding="utf-8")
    (tests / "test_user.py").write_text(USER_TESTS, encoding="utf-8")
    (tests / "tool.py").write_text((tool_repo.path / "tool.py").read_text(), encoding="utf-8")
    # A subprocess: in this process our own ``strategies`` may already be imported.
    result = tool_repo.runpytest_subprocess("tests", "-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=2, failed=3)
    shadowed = "*the module 'strategies' imported from *tests/strategies.py is not param-fidelity's"
    text = result.stdout.str()
    assert text.count("a local 'strategies' module shadows it") >= 3
    result.stdout.fnmatch_lines(
        [
            "*test_survey_names_the_shadowing*",
            f"{shadowed}*",
        ]
    )
    # Plain use of the shadowed module keeps its AttributeError, with our hint beside it.
    result.stdout.fnmatch_lines(
        [
            "*AttributeError: module 'strategies' has no attribute 'text'*",
            "*- param-fidelity -*",
            f"{shadowed}*",
        ]
    )
