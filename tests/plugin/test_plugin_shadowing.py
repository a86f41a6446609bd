"""A user's repository with its own ``tests/strategies.py``: the plugin still works."""

from __future__ import annotations

import pytest

USER_STRATEGIES = """
# The user's own helpers, unrelated to param-fidelity.
def build_order(n):
    return {"id": n}
"""

USER_PROBES = """
# The user's own probes (health checks), unrelated to param-fidelity.
def liveness():
    return True
"""

USER_TESTS = """
import pytest

import probes
import strategies
import tool

def test_own_modules():
    assert strategies.build_order(3) == {"id": 3}
    assert probes.liveness()

def test_check_works(fidelity):
    fidelity.check(tool.send, "plain")

@pytest.mark.fidelity(allow=["quote.straighten"])
def test_survey_works(fidelity):
    result = fidelity.survey(tool.send, families=["quotes"])
    assert result.kinds == {"quote.straighten"}

def test_fixture_packages_are_ours(fidelity):
    assert fidelity.strategies.text() is not None
    assert fidelity.probes.function(tool.send) is not None
    assert strategies.build_order(1) == {"id": 1}  # the name stays the user's

def test_direct_use_gets_a_hint():
    strategies.text()
"""

OWNS = (
    "*the module 'strategies' imported from *strategies.py is the repository's own, "
    "not param-fidelity's strategies package*"
)


@pytest.mark.parametrize(
    ("package", "mode"),
    [
        (False, "prepend"),
        (False, "importlib"),
        (True, "prepend"),
        (True, "importlib"),
    ],
    ids=["no-init-prepend", "no-init-importlib", "init-prepend", "init-importlib"],
)
def test_a_users_own_strategies_and_probes_leave_the_plugin_working(
    tool_repo: pytest.Pytester, package: bool, mode: str
) -> None:
    # tests/strategies.py and tests/probes.py, as Hypothesis and pytest layouts have
    # them, with and without tests/__init__.py, in both import modes; `pythonpath`
    # puts tests/ on sys.path so that `import strategies` finds the user's module
    # in every one of them.
    tests = tool_repo.mkdir("tests")
    if package:
        (tests / "__init__.py").write_text("", encoding="utf-8")
    (tests / "strategies.py").write_text(USER_STRATEGIES, encoding="utf-8")
    (tests / "probes.py").write_text(USER_PROBES, encoding="utf-8")
    (tests / "test_user.py").write_text(USER_TESTS, encoding="utf-8")
    (tests / "tool.py").write_text((tool_repo.path / "tool.py").read_text(), encoding="utf-8")
    tool_repo.makeini("[pytest]\npythonpath = tests\n")
    # A subprocess: in this process our own ``strategies`` is already imported.
    result = tool_repo.runpytest_subprocess(
        "tests", "-p", "no:cacheprovider", f"--import-mode={mode}", timeout=120
    )
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AttributeError: module 'strategies' has no attribute 'text'*",
            "*- param-fidelity -*",
            OWNS + "*",
        ]
    )
    result.stdout.no_fnmatch_line("*UsageError*")


def test_a_local_probes_package_leaves_the_reflector_fixtures_working(
    pytester: pytest.Pytester,
) -> None:
    pytester.mkpydir("probes")
    (pytester.path / "probes" / "__init__.py").write_text(USER_PROBES, encoding="utf-8")
    pytester.makepyfile(
        test_user="""
        import probes

        def test_own_probes():
            assert probes.liveness()

        def test_reflector(fidelity, fidelity_http_reflector):
            fidelity.check(fidelity_http_reflector, "plain")
            assert probes.liveness()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=2)


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
