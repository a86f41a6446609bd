"""``--openapi`` against an API that wants names unique (``tests/servers/openapi_unique.py``):
the made values of names, ids, titles and e-mails are unique per request (a
``{run}-{n}`` suffix within the schema's lengths), so no 409 comes from the tool;
``--default`` keeps its ``{n}`` and ``{run}``; and the JUnit file agrees with the exit
code (a field that measured nothing is an ``<error>``; a run that measured nothing is
exit 3 and never ``tests=0``)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def api() -> Iterator[str]:
    need_module("fastapi")
    with serving("openapi_unique.py") as url:
        yield url


def _cards(path: Path) -> dict[str, list[str]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {c["name"]: [o["status"] for o in c["observations"]] for c in document["cards"]}


def _cases(path: Path) -> dict[str, str]:
    """Each JUnit case's name and verdict: ok, failure or error."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        verdict = "error" if case.find("error") is not None else "ok"
        verdict = "failure" if case.find("failure") is not None else verdict
        out[case.get("name", "")] = verdict
    return out


def test_made_names_are_unique_per_request_so_no_conflict_stops_a_field(
    api: str, tmp_path: Path
) -> None:
    out, junit = tmp_path / "r.json", tmp_path / "j.xml"
    result = fidelity(
        "probe", "--openapi", f"{api}/openapi.json", api, "--yes", "--only-op", "POST /projects",
        "--families", "quotes", "--json", str(out), "--junit", str(junit),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _cards(out) == {
        "POST:/projects:body.name": ["preserved"] * 17,
        "POST:/projects:body.title": ["preserved"] * 17,
    }
    seen = httpx.get(f"{api}/_seen").json()
    # body.title's run: a name and an e-mail made unique for each request.
    names = [s for s in seen if re.fullmatch(r"value\d+-[0-9a-f]{8}-\d+", s)]
    emails = [s for s in seen if s.endswith("@example.com")]
    # (two or three calibration values before the payloads of each field)
    assert len(names) == len(set(names)) >= 17 + 2
    assert len(emails) == len(set(emails)) >= 2 * (17 + 2)
    assert all(re.fullmatch(r"user-[0-9a-f]{8}-\d+@example\.com", e) for e in emails)
    assert _cases(junit) == {"POST:/projects:body.name": "ok", "POST:/projects:body.title": "ok"}


def test_a_short_unique_field_gets_a_suffix_that_fits(api: str, tmp_path: Path) -> None:
    """``username`` is 3 to 16 characters: made as ``{run}{n}`` (at most 15)."""
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--openapi", f"{api}/openapi.json", api, "--yes", "--only-op", "POST /users",
        "--families", "quotes", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 3  # body.username itself cannot carry a 24-character marker
    assert _cards(out) == {"POST:/users:body.bio": ["preserved"] * 17}
    usernames = [s for s in httpx.get(f"{api}/_seen").json() if re.fullmatch(r"[0-9a-f]{9,}", s)]
    assert len(usernames) == len(set(usernames)) >= 17 + 2
    assert all(3 <= len(u) <= 16 for u in usernames)


def test_default_keeps_run_and_n(api: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--openapi", f"{api}/openapi.json", api, "--yes", "--only-op", "POST /projects",
        "--default", 'name="proj-{run}-{n}"', "--families", "quotes", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _cards(out)["POST:/projects:body.title"] == ["preserved"] * 17
    names = [s for s in httpx.get(f"{api}/_seen").json() if s.startswith("proj-")]
    assert len(names) == len(set(names)) >= 17 + 2
    assert all(re.fullmatch(r"proj-[0-9a-f]{8}-\d+", n) for n in names)


def test_fields_that_measured_nothing_are_junit_errors_and_exit_3(api: str, tmp_path: Path) -> None:
    junit, out, joined = tmp_path / "j.xml", tmp_path / "r.json", tmp_path / "joined.xml"
    result = fidelity(
        "probe", "--openapi", f"{api}/openapi.json", api, "--yes", "--only-op", "POST /jobs/*",
        "--families", "quotes", "--junit", str(junit), "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert _cases(junit) == {
        "POST:/jobs/:queue:path.queue": "error",
        "POST:/jobs/:queue:body.label": "error",
    }
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("errors")) == ("2", "2")
    assert "HTTP 500" in junit.read_text(encoding="utf-8")
    # The JUnit of the run's --json, made by fidelity card, is the same bytes.
    assert fidelity("card", str(out), "--junit", str(joined)).returncode == 0
    assert joined.read_bytes() == junit.read_bytes()


def test_a_run_that_surveys_nothing_is_one_junit_error_not_tests_0(
    api: str, tmp_path: Path
) -> None:
    """Without --yes no POST is sent: nothing is measured, exit 3, and the JUnit file
    says so in an <error> case."""
    junit = tmp_path / "j.xml"
    result = fidelity(
        "probe", "--openapi", f"{api}/openapi.json", api, "--only-op", "POST /projects",
        "--families", "quotes", "--junit", str(junit),
    )  # fmt: skip
    assert result.returncode == 3
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("1", "1", "0")
    error = root.find(".//error")
    assert error is not None
    assert "nothing was measured" in (error.text or "")
    assert httpx.get(f"{api}/_seen").json() == []
