"""Surveys in a tool's own suite: failures, cards written, drift, xdist merging."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest
from _needs import need_module
from _support.servers import SERVERS

FAMILIES = "--fidelity-families=quotes,newlines,whitespace"

SURVEY_TESTS = """
import pytest
import tool

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit_file.old_string")
def test_edit_survey(fidelity):
    result = fidelity.survey(tool.send)
    assert result.observations
"""


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_a_survey_fails_on_rewrites_beyond_allow(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import tool

        def test_edit_survey(fidelity):
            fidelity.survey(tool.send, name="edit_file.old_string")
        """
    )
    result = tool_repo.runpytest(FAMILIES)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FidelityError: the chain edit_file.old_string rewrote payloads: "
            "quote.straighten (not allowed)",
            "*--- quote.straighten: smallest example",
            "*payload id: quotes/*",
            "*U+201*QUOTATION MARK*",
            "*hint: quote.straighten: a layer normalises typographic quotes to ASCII*",
            '*@pytest.mark.fidelity(allow=[[]"quote.straighten"[]])*',
        ]
    )


def test_allowed_rewrites_pass_and_the_card_documents_them(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    result = tool_repo.runpytest(FAMILIES, "--fidelity-cards=cards")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*= param-fidelity =*",
            "chains and rewrites found:",
            "  edit_file.old_string [survey in test_tool.py::test_edit_survey]: "
            "quote.straighten (allowed)",
            "cards written to cards: edit_file.old_string.md/.json",
        ]
    )
    cards = tool_repo.path / "cards"
    assert sorted(_files(cards)) == ["edit_file.old_string.json", "edit_file.old_string.md"]
    markdown = (cards / "edit_file.old_string.md").read_text(encoding="utf-8")
    assert "quote.straighten" in markdown
    card = json.loads((cards / "edit_file.old_string.json").read_text(encoding="utf-8"))
    assert "quote.straighten" in json.dumps(card)
    assert "schema_version" in card


def test_a_changed_chain_fails_the_drift_check(
    tool_repo: pytest.Pytester, tool_versions: dict[str, str]
) -> None:
    tool_repo.makepyfile(tool=tool_versions["faithful"], test_tool=SURVEY_TESTS)
    written = tool_repo.runpytest(FAMILIES, "--fidelity-cards=committed")
    written.assert_outcomes(passed=1)
    same = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["1 card(s) match committed"])

    # A release adds a "helpful" normaliser: the test still passes (the rewrite is
    # allowed), but the chain no longer matches its committed card.
    tool_repo.makepyfile(tool=tool_versions["straightens"])
    drifted = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    drifted.assert_outcomes(passed=1)
    assert drifted.ret == pytest.ExitCode.TESTS_FAILED
    # The message names the row, what changed, the old and new rows, and an example.
    drifted.stdout.fnmatch_lines(
        [
            "card drift (the chains now behave differently; the run fails):",
            "card edit_file.old_string drifted from committed*edit_file.old_string.json:",
            "    quotes (round trip): outcome preserved -> mixed; kind quote.straighten appeared",
            "        committed: preserved (*); kinds: none",
            "        now:       mixed (* preserved, * transformed); kinds: quote.straighten",
            "        e.g. quote.straighten: * [[]U+201C *] -> * [[]U+0022 *]",
        ]
    )


#: The tool before and after a release that upper-cases on top of straightening quotes:
#: the quotes row stays "mixed (1 preserved, 1 transformed)", only its kinds change.
TOOL_V1 = """
def send(text):
    return text.translate({0x201C: '"', 0x201D: '"'})
"""
TOOL_V2 = """
def send(text):
    return text.translate({0x201C: '"', 0x201D: '"'}).upper()
"""
PAYLOAD_TESTS = """
import pytest
from fidelity import Payload
import tool

PAYLOADS = [
    Payload(id="quotes/curly", text="\\u201cq\\u201d", families=("quotes",)),
    Payload(id="quotes/digits", text="123", families=("quotes",)),
    Payload(id="newlines/crlf", text="1\\r\\n2", families=("newlines",)),
    Payload(id="whitespace/nbsp", text="1\\u00a02", families=("whitespace",)),
]

@pytest.mark.fidelity(allow=["quote.straighten", "unicode.case"], card="edit")
def test_edit_survey(fidelity):
    fidelity.survey(tool.send, payloads=PAYLOADS)
"""


def test_kinds_that_change_within_an_unchanged_outcome_fail_the_check(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(tool=TOOL_V1, test_tool=PAYLOAD_TESTS)
    families = "--fidelity-families=quotes,newlines"
    pytester.runpytest(families, "--fidelity-cards=committed").assert_outcomes(passed=1)
    pytester.makepyfile(tool=TOOL_V2)
    drifted = pytester.runpytest(families, "--fidelity-check=committed")
    drifted.assert_outcomes(passed=1)
    assert drifted.ret == pytest.ExitCode.TESTS_FAILED
    drifted.stdout.fnmatch_lines(
        [
            "card drift (the chains now behave differently; the run fails):",
            "card edit drifted from committed*edit.json:",
            "    quotes (round trip): kind unicode.case appeared",
            "        committed: mixed (1 preserved, 1 transformed); kinds: quote.straighten",
            "        now:       mixed (1 preserved, 1 transformed); kinds: quote.straighten, "
            "unicode.case",
            "        e.g. unicode.case: *",
        ]
    )
    drifted.stdout.no_fnmatch_line("*outcome*->*")
    drifted.stdout.no_fnmatch_line("*newlines (round trip)*")


def test_rows_that_appear_or_vanish_fail_the_check(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(tool=TOOL_V1, test_tool=PAYLOAD_TESTS)
    written = pytester.runpytest("--fidelity-families=quotes,newlines", "--fidelity-cards=c")
    written.assert_outcomes(passed=1)
    fewer = pytester.runpytest("--fidelity-families=quotes", "--fidelity-check=c")
    assert fewer.ret == pytest.ExitCode.TESTS_FAILED
    fewer.stdout.fnmatch_lines(
        [
            "card edit drifted from c*edit.json:",
            "    newlines (round trip): no longer surveyed (was preserved (1))",
            "        committed: preserved (1); kinds: none",
            "        now:       (no row)",
        ]
    )
    more = pytester.runpytest(
        "--fidelity-families=quotes,newlines,whitespace", "--fidelity-check=c"
    )
    assert more.ret == pytest.ExitCode.TESTS_FAILED
    more.stdout.fnmatch_lines(
        [
            "card edit drifted from c*edit.json:",
            "    whitespace (round trip): new row, preserved (1)",
            "        committed: (no row)",
            "        now:       preserved (1); kinds: none",
        ]
    )
    same = pytester.runpytest("--fidelity-families=quotes,newlines", "--fidelity-check=c")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["1 card(s) match c"])


def test_a_card_without_a_committed_card_is_drift(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    (tool_repo.path / "committed").mkdir()
    result = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*card edit_file.old_string has no committed card*--fidelity-cards committed"]
    )


XDIST_TESTS = """
import json
import pytest
import tool

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit_file.old_string")
def test_quotes(fidelity):
    fidelity.survey(tool.send, families=["quotes"])

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit_file.old_string")
def test_newlines(fidelity):
    fidelity.survey(tool.send, families=["newlines"])

def test_json_wire(fidelity):
    fidelity.survey(tool.wire, name="json.wire")

@pytest.mark.parametrize("n", range(4))
def test_filler(n):
    pass
"""


def test_xdist_cards_are_merged_byte_identical_to_a_serial_run(
    tool_repo: pytest.Pytester,
) -> None:
    tool_repo.makepyfile(test_tool=XDIST_TESTS)
    serial = tool_repo.runpytest(FAMILIES, "--fidelity-cards=serial", "-p", "no:xdist")
    serial.assert_outcomes(passed=7)
    # Hypothesis's own pytest plugin is left out of the three interpreters (it costs each
    # about a second to load; the surveys import Hypothesis themselves when they use it).
    parallel = tool_repo.runpytest_subprocess(
        FAMILIES, "--fidelity-cards=parallel", "-n", "2", "-p", "no:hypothesispytest", timeout=120
    )
    parallel.assert_outcomes(passed=7)
    parallel.stdout.fnmatch_lines(["*2 workers [[]7 items[]]*"])
    parallel.stdout.fnmatch_lines(
        [
            "chains and rewrites found:",
            "  edit_file.old_string [[]survey in test_tool.py::test_quotes[]]: "
            "quote.straighten (allowed)",
        ]
    )
    serial_cards = _files(tool_repo.path / "serial")
    assert sorted(serial_cards) == [
        "edit_file.old_string.json",
        "edit_file.old_string.md",
        "json.wire.json",
        "json.wire.md",
    ]
    assert _files(tool_repo.path / "parallel") == serial_cards
    # The merged card holds both tests' families.
    merged = serial_cards["edit_file.old_string.md"].decode("utf-8")
    assert "quotes" in merged
    assert "newlines" in merged


def test_cards_are_reproducible_with_hypothesis_examples(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    options = ("--fidelity-families=quotes", "--fidelity-examples=5", "--fidelity-seed=3")
    first = tool_repo.runpytest(*options, "--fidelity-cards=first")
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(
        ["fidelity: seed=3, families=quotes, catalogue=all, examples=5, cards=first"]
    )
    second = tool_repo.runpytest(*options, "--fidelity-cards=second")
    second.assert_outcomes(passed=1)
    assert _files(tool_repo.path / "first") == _files(tool_repo.path / "second")


def test_catalogue_budget_limits_payloads_per_family(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import collections
        import pytest
        import tool

        @pytest.mark.fidelity(allow=["quote.straighten"])
        def test_budget(fidelity):
            result = fidelity.survey(tool.send)
            per_family = collections.Counter(o.families[0] for o in result.observations)
            assert set(per_family) == {"quotes", "newlines"}
            assert set(per_family.values()) == {2}
        """
    )
    result = tool_repo.runpytest("--fidelity-families=quotes,newlines", "--fidelity-catalogue=2")
    result.assert_outcomes(passed=1)


CLASHING_TESTS = """
import pytest
import tool

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit_file.old_string")
def test_straightening(fidelity):
    fidelity.survey(tool.send)

@pytest.mark.fidelity(card="edit_file.old_string")
def test_wire(fidelity):
    fidelity.survey(tool.wire)

def test_slash(fidelity):
    fidelity.survey(tool.wire, name="json/wire")

def test_underscore(fidelity):
    fidelity.survey(tool.wire, name="json_wire")

def test_other(fidelity):
    fidelity.survey(tool.wire, name="other")
"""


def test_one_card_name_for_two_chains_is_named_not_a_crash(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(test_tool=CLASHING_TESTS)
    result = tool_repo.runpytest("--fidelity-families=quotes", "--fidelity-cards=cards")
    result.assert_outcomes(passed=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "cards left out:",
            "  card edit_file.old_string names different chains "
            "(send in test_tool.py::test_straightening; wire in test_tool.py::test_wire): "
            "give each chain its own card name*",
            "  cards json/wire, json_wire would all be written to json_wire.json*",
            "cards written to cards: other.md/.json",
        ]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    assert sorted(_files(tool_repo.path / "cards")) == ["other.json", "other.md"]


def test_no_cards_write_no_directory(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import tool

        def test_edit(fidelity):
            fidelity.check(tool.wire, "x")
        """
    )
    result = tool_repo.runpytest("--fidelity-cards=cards")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["no cards were produced in this session: nothing written (cards come from *survey()*"]
    )
    assert not (tool_repo.path / "cards").exists()


def test_drift_names_what_changed_around_it_first(
    tool_repo: pytest.Pytester, tool_versions: dict[str, str]
) -> None:
    tool_repo.makepyfile(tool=tool_versions["faithful"], test_tool=SURVEY_TESTS)
    tool_repo.runpytest(FAMILIES, "--fidelity-cards=committed").assert_outcomes(passed=1)
    # The committed card was measured on another Python (its record says so).
    path = tool_repo.path / "committed" / "edit_file.old_string.json"
    card = json.loads(path.read_text(encoding="utf-8"))
    card["facts"]["environment"]["python"] = "3.0.1"
    path.write_text(json.dumps(card), encoding="utf-8")
    # The environment alone changed: not drift.
    same = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["1 card(s) match committed"])
    tool_repo.makepyfile(tool=tool_versions["straightens"])
    drifted = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert drifted.ret == pytest.ExitCode.TESTS_FAILED
    drifted.stdout.fnmatch_lines(
        [
            "card edit_file.old_string drifted from committed*edit_file.old_string.json:",
            f"    environment changed: Python 3.0.1 -> {platform.python_version()}; "
            "quotes: preserved -> mixed",
            "    quotes (round trip): outcome preserved -> mixed; kind quote.straighten appeared",
        ]
    )


def test_a_plugin_card_records_its_plan(pytester: pytest.Pytester) -> None:
    need_module("mcp")
    pytester.makepyfile(
        test_card=f"""
        import probes

        def test_edit(fidelity):
            server = probes.mcp_module(
                "mcp_quote_edit:server", tool="edit", param="old_string",
                args={{"path": "doc.txt", "new_string": "x"}}, read="armored:searched",
                allow_destructive=True, cwd={str(SERVERS)!r},
            )
            server.name = "edit.old_string"
            with server:
                fidelity.survey(server, families=["quotes"], allow=["quote.straighten"])
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--fidelity-cards=cards")
    result.assert_outcomes(passed=1)
    card = json.loads((pytester.path / "cards" / "edit.old_string.json").read_text("utf-8"))
    setup = card["facts"]["setup"]
    assert setup["tool"] == "edit"
    assert setup["param"] == "old_string"
    assert setup["read"] == "armored:searched"
    assert setup["args"] == {"path": "doc.txt", "new_string": "x"}
    assert card["facts"]["chain"] == "edit.old_string"
