"""What CI dashboards see (drift and failures in --junitxml), honest checks, fitting advice."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml

FAMILIES = "--fidelity-families=quotes,newlines"

TWO_CARDS = """
import pytest
import tool

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit.old_string")
def test_edit(fidelity):
    fidelity.survey(tool.send)

@pytest.mark.fidelity(card="edit.wire")
def test_wire(fidelity):
    fidelity.survey(tool.wire)
"""


def _cases(path: Path) -> dict[str, list[Failure]]:
    """Each test case's name (class::name) and its failures, read with junitparser."""
    cases: dict[str, list[Failure]] = {}
    for suite in JUnitXml.fromfile(str(path)):
        for case in suite:
            failures = [r for r in case.result if isinstance(r, Failure)]
            cases[f"{case.classname}::{case.name}"] = failures
    return cases


def test_card_drift_is_a_failing_case_in_junit(
    tool_repo: pytest.Pytester, tool_versions: dict[str, str]
) -> None:
    tool_repo.makepyfile(tool=tool_versions["faithful"], test_tool=TWO_CARDS)
    tool_repo.runpytest(FAMILIES, "--fidelity-cards=committed").assert_outcomes(passed=2)
    tool_repo.makepyfile(tool=tool_versions["straightens"])

    drifted = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", "--junitxml=out.xml")
    drifted.assert_outcomes(passed=2)
    assert drifted.ret == pytest.ExitCode.TESTS_FAILED
    drifted.stdout.fnmatch_lines(["1 card(s) match committed"])

    out = tool_repo.path / "out.xml"
    cases = _cases(out)
    assert cases["test_tool::test_edit"] == []
    assert cases["test_tool::test_wire"] == []
    (failure,) = cases["fidelity-check::edit.old_string"]
    assert "card edit.old_string drifted from committed" in failure.text
    assert "kind quote.straighten appeared" in failure.text
    assert "fidelity-check::edit.wire" not in cases  # it matches: no case of its own
    # The file's totals say so too (the issue: failures="0" while the run exited 1).
    root = ET.parse(out).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "1"


def test_a_fidelity_failure_message_holds_kinds_and_allow_line(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import tool

        def test_edit(fidelity):
            fidelity.check(tool.send, "say \\u201chi\\u201d")
        """
    )
    result = tool_repo.runpytest("--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    (failure,) = _cases(tool_repo.path / "out.xml")["test_tool::test_edit"]
    assert failure.message == (
        "fidelity.FidelityError: the chain send rewrote the value: quote.straighten "
        "(not allowed); if these rewrites are accepted: "
        '@pytest.mark.fidelity(allow=["quote.straighten"])'
    )
    assert "hint: quote.straighten: a layer normalises typographic quotes" in failure.text
    assert '@pytest.mark.fidelity(allow=["quote.straighten"])' in failure.text


def test_a_committed_card_not_produced_is_drift_when_the_whole_suite_ran(
    tool_repo: pytest.Pytester, tool_versions: dict[str, str]
) -> None:
    tool_repo.makepyfile(tool=tool_versions["faithful"], test_tool=TWO_CARDS)
    tool_repo.runpytest(FAMILIES, "--fidelity-cards=committed").assert_outcomes(passed=2)

    # Deselected with -k: a note, not a pass that checked nothing, and not drift.
    some = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", "-k", "wire")
    assert some.ret == pytest.ExitCode.OK
    some.stdout.fnmatch_lines(
        [
            "1 card(s) match committed",
            "not checked: 1 committed card(s) this run did not produce (edit.old_string); "
            "tests were selected with -k 'wire': run the whole suite to check them",
        ]
    )
    by_id = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", "test_tool.py::test_wire")
    assert by_id.ret == pytest.ExitCode.OK
    by_id.stdout.fnmatch_lines(["not checked: 1 committed card(s)*the run was limited to *"])
    # A directory below the suite is a part of it; the root directory is the whole suite.
    (tool_repo.path / "sub").mkdir()
    below = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", "sub")
    below.stdout.fnmatch_lines(["not checked: 2 committed card(s)*the run was limited to sub*"])
    whole = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", str(tool_repo.path))
    whole.stdout.fnmatch_lines(["2 card(s) match committed"])
    whole.stdout.no_fnmatch_line("*not checked*")

    # The test is gone and the whole suite ran: the card is no longer produced.
    tool_repo.makepyfile(test_tool=TWO_CARDS.split("@pytest.mark.fidelity(card=", maxsplit=1)[0])
    gone = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed", "--junitxml=out.xml")
    gone.assert_outcomes(passed=1)
    assert gone.ret == pytest.ExitCode.TESTS_FAILED
    gone.stdout.fnmatch_lines(
        [
            "card drift (the chains now behave differently; the run fails):",
            "card edit.wire is no longer produced: committed*edit.wire.json is committed but "
            "no test of this run surveyed it; delete it if the chain is gone, or restore its test",
        ]
    )
    (failure,) = _cases(tool_repo.path / "out.xml")["fidelity-check::edit.wire"]
    assert "is no longer produced" in failure.text


def test_allowed_kinds_that_never_occur_are_named(
    tool_repo: pytest.Pytester, tool_versions: dict[str, str]
) -> None:
    tool_repo.makepyfile(tool=tool_versions["faithful"], test_tool=TWO_CARDS)
    result = tool_repo.runpytest(FAMILIES)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "allowed kinds that never occurred in their test:",
            "  test_tool.py::test_edit: quote.straighten never occurred "
            "(remove it from allow=[...] if the chain no longer does it)",
        ]
    )
    result.stdout.no_fnmatch_line("*test_wire: *never occurred*")
    # Where the allowed kind does occur, nothing is said.
    tool_repo.makepyfile(tool=tool_versions["straightens"])
    used = tool_repo.runpytest(FAMILIES, "-k", "edit")
    used.assert_outcomes(passed=1)
    used.stdout.no_fnmatch_line("*never occurred*")


@pytest.mark.usefixtures("mcp_sdk")
def test_a_lost_value_first_asks_to_pin_the_read_back(pytester: pytest.Pytester) -> None:
    from _support.servers import SERVERS

    pytester.makepyfile(
        test_server=f"""
        import probes

        def test_edit(fidelity):
            server = probes.mcp_module(
                "mcp_quote_edit:server", tool="edit", param="old_string",
                args={{"path": "doc.txt", "new_string": "x"}}, read="json:searched",
                allow_destructive=True, cwd={str(SERVERS)!r},
            )
            with server:
                fidelity.check(server, "plain")
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*did not deliver the value: lost",
            "*outcome: lost (lost: no text content is a JSON document; what came back: "
            "0 replacement(s) in doc.txt)",
            "*the call succeeded but the value was not found where it was read back: if it "
            "comes back elsewhere, pin where with read=*",
            "*if the tool really does not return the value: "
            'fidelity.check(..., accept=[[]"lost"[]])',
        ]
    )
    text = result.stdout.str()
    assert text.index("pin where with read=") < text.index('accept=["lost"]')
