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


def test_a_local_probes_package_fails_reflector_fixtures_in_one_sentence(
    pytester: pytest.Pytester,
) -> None:
    pytester.mkpydir("probes")
    (pytester.path / "probes" / "__init__.py").write_text(
        "def liveness():\n    return True\n", encoding="utf-8"
    )
    pytester.makepyfile(
        test_user="""
        import probes

        def test_own_probes():
            assert probes.liveness()

        def test_reflector(fidelity_http_reflector):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["the module 'probes' imported from *probes/__init__.py is not param-fidelity's*"]
    )
    result.stdout.no_fnmatch_line("*_plugin_reflectors.py*")
    result.stdout.no_fnmatch_line("*_imports.py*")


def test_a_typo_in_the_users_own_strategies_gets_no_hint_from_us(
    pytester: pytest.Pytester,
) -> None:
    # A repository that never uses param-fidelity: its own module, its own typo.
    pytester.makepyfile(
        strategies=USER_STRATEGIES,
        test_own="""
        import strategies

        def test_typo():
            strategies.bulid_order(3)
        """,
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AttributeError: module 'strategies' has no attribute*"])
    result.stdout.no_fnmatch_line("*- param-fidelity -*")
    result.stdout.no_fnmatch_line("*shadows it*")
