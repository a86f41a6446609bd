"""The JUnit renderer on its own: data in, XML text out, safe whatever the text."""

from __future__ import annotations

from _support.junit import RAW, check_schema

from fidelity import survey
from fidelity._probe.contract import FunctionProbe
from fidelity._report.junit import JUnitCase, JUnitSuite, card_case, code_points, render_junit


def test_code_points_of_a_value() -> None:
    assert code_points("a\r\x00") == "U+0061 U+000D U+0000"
    assert code_points("") == "(empty)"
    assert code_points(None) == "(nothing)"
    assert code_points("x" * 45, limit=2) == "U+0078 U+0078 ... (43 more)"


def test_hostile_names_values_and_errors_stay_printable_ascii_xml() -> None:
    hostile = "a\x1b[31m\u202e\x00\ud800\x07b"

    def chain(text: str) -> str:
        if "\u201d" in text:
            raise ValueError(hostile)
        return text.replace("\u201c", '"') + "\x00\x1b"

    card = survey(FunctionProbe(chain), families=["quotes"]).card(name="t.p")
    case = card_case(card, name=hostile, error=f"{hostile}; more")
    text = render_junit([JUnitSuite(name=hostile, cases=(case, JUnitCase(name="plain")))])
    root = check_schema(text)
    assert not RAW.search(text)
    assert text.isascii()
    [suite] = root
    assert "U+001B" in (suite.get("name") or "")
    assert "U+202E" in (suite.get("name") or "")
    first = suite[0]
    assert [child.tag for child in first] == ["error", "failure", "system-out"]
    failure = first[1]
    assert "U+0000 U+001B" in (failure.text or "")  # the value as code points
    assert (failure.get("message") or "").startswith("rewrites beyond --allow: ")


def test_the_same_cases_give_the_same_bytes() -> None:
    suites = [JUnitSuite(name="s", cases=(JUnitCase(name="c", counts=(("preserved", 3),)),))]
    assert render_junit(suites) == render_junit(list(suites))
    assert 'time="0"' in render_junit(suites)
    assert "timestamp" not in render_junit(suites)
