"""The JUnit document of hand-made cases, byte for byte: totals per suite and in all,
the order of error, failure and system-out, the singular and plural of the counts, and
a case's own output (made terminal-safe). Expected text written by hand."""

from __future__ import annotations

from fidelity._report.junit import JUnitCase, JUnitSuite, render_junit

EXPECTED = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="fidelity" tests="4" failures="1" errors="1" time="0">
  <testsuite name="srv" id="0" tests="3" failures="1" errors="1" skipped="0" time="0">
    <testcase classname="srv" name="t.a" time="0">
      <system-out>1 payload: 1 preserved</system-out>
    </testcase>
    <testcase classname="srv" name="t.b" time="0">
      <failure message="rewrites beyond --allow: quote.straight" type="fidelity.rewrite">x</failure>
      <system-out>3 payloads: 2 preserved, 1 transformed</system-out>
    </testcase>
    <testcase classname="srv" name="t.c" time="0">
      <error message="broke" type="fidelity.error">broke; more</error>
      <system-out>0 payloads: none</system-out>
    </testcase>
  </testsuite>
  <testsuite name="two" id="1" tests="1" failures="0" errors="0" skipped="0" time="0">
    <testcase classname="two" name="e" time="0">
      <system-out>own[U+001B ESCAPE]</system-out>
    </testcase>
  </testsuite>
</testsuites>
"""


def test_hand_made_cases_render_to_the_exact_document() -> None:
    suites = [
        JUnitSuite(
            name="srv",
            cases=(
                JUnitCase(name="t.a", counts=(("preserved", 1),)),
                JUnitCase(
                    name="t.b",
                    counts=(("preserved", 2), ("transformed", 1)),
                    failure=("rewrites beyond --allow: quote.straight", "x"),
                ),
                JUnitCase(name="t.c", error=("broke", "broke; more")),
            ),
        ),
        JUnitSuite(name="two", cases=(JUnitCase(name="e", output="own\x1b"),)),
    ]
    assert render_junit(suites) == EXPECTED


def test_a_family_case_fails_only_on_its_own_rows() -> None:
    from fidelity import survey
    from fidelity._probe.contract import FunctionProbe
    from fidelity._report.junit import family_cases

    def straighten(text: str) -> str:
        return text.replace("\u201c", '"').replace("\u201d", '"')

    card = survey(FunctionProbe(straighten), families=["quotes", "bom"]).card(name="c")
    quotes, bom = family_cases(card)
    assert (quotes.name, bom.name) == ("quotes", "bom")
    assert [status for status, _ in quotes.counts] == ["preserved", "transformed"]
    assert quotes.failure is not None
    assert quotes.failure[0] == "rewrites beyond --allow: quote.straighten"
    assert quotes.failure[1].splitlines()[0] == "quotes (round_trip): quote.straighten"
    # The byte order marks arrive intact: their case has no failure of the quotes' rows.
    assert bom.failure is None
    assert bom.error is None
    assert [status for status, _ in bom.counts] == ["preserved"]


def test_a_failure_shows_at_most_40_code_points_of_a_value() -> None:
    from fidelity._report.junit import code_points

    assert code_points("y" * 42) == " ".join(["U+0079"] * 40) + " ... (2 more)"
    assert code_points("y" * 40) == " ".join(["U+0079"] * 40)
