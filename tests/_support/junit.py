"""Reading a JUnit file as CI systems do: junitparser (a JUnit consumer from PyPI) and
the structure of the JUnit schema that Jenkins, GitLab and the GitHub test reporters
accept (testsuites / testsuite / testcase / failure | error | skipped | system-out)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["RAW", "cases", "check_schema"]

#: Characters that must never be written raw (terminal- and XML-unsafe).
RAW = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)

_SUITE = {"name", "tests", "failures", "errors", "skipped", "time", "id"}
_CASE = {"name", "classname", "time", "assertions"}
_CASE_CHILDREN = {"skipped", "error", "failure", "system-out", "system-err"}


def _int(element: ET.Element, key: str) -> int:
    value = element.get(key, "0")
    assert re.fullmatch(r"[0-9]+", value), (element.tag, key, value)
    return int(value)


def check_schema(text: str) -> ET.Element:
    """Assert ``text`` is JUnit XML of the common schema, its totals true; return the
    root. No raw control or bidi character anywhere."""
    assert not RAW.search(text), RAW.search(text)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in root:
        assert suite.tag == "testsuite"
        assert set(suite.attrib) <= _SUITE
        assert {"name", "tests"} <= set(suite.attrib)
        counted = {"tests": 0, "failures": 0, "errors": 0}
        for case in suite:
            assert case.tag == "testcase"
            assert set(case.attrib) <= _CASE
            assert {"name", "classname"} <= set(case.attrib)
            tags = [child.tag for child in case]
            assert set(tags) <= _CASE_CHILDREN, tags
            # The schema's order: skipped?, error*, failure*, system-out*, system-err*.
            order = sorted(
                tags, key=["skipped", "error", "failure", "system-out", "system-err"].index
            )
            assert tags == order, tags
            for child in case:
                if child.tag in ("failure", "error"):
                    assert child.get("message")
                    assert child.get("type")
            counted["tests"] += 1
            counted["failures"] += "failure" in tags
            counted["errors"] += "error" in tags
        for key, value in counted.items():
            assert _int(suite, key) == value, (key, suite.attrib)
            totals[key] += value
    for key, value in totals.items():
        assert _int(root, key) == value
    return root


def cases(path: Path) -> dict[tuple[str, str], object]:
    """Every case of the file as junitparser reads it, by (suite, case name)."""
    from junitparser import JUnitXml

    xml = JUnitXml.fromfile(str(path))
    return {(suite.name, case.name): case for suite in xml for case in suite}
